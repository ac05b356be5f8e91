// 👍/👎 and a comment on each answer of the chat page (not on a run that failed): PUT /api/runs/<id>/feedback.
// The forms are server-rendered (templates/diagnosis/_feedback.html); a run that finishes while the page is
// open gets a copy of the page's #feedback-template when chat.js announces `superbiz:run-finished` on its card.
// The texts this script shows go through Django's JavaScript catalogue (gettext, interpolate from /jsi18n/); the
// API is called through static/js/api.js (loaded before this script).
(function () {
  "use strict";

  const api = window.superbizApi;
  const template = document.getElementById("feedback-template");

  function show(form, rating) {
    form.dataset.rating = rating;
    form.querySelectorAll(".feedback-rate").forEach(function (button) {
      button.setAttribute("aria-pressed", button.value === rating ? "true" : "false");
    });
    form.querySelector(".feedback-more").hidden = false;
  }

  // One request at a time per form: with two in flight the buttons would follow whichever reply came last,
  // not the rating the server kept.
  function send(form, rating) {
    const status = form.querySelector(".feedback-status");
    const body = { rating: rating, comment: form.elements.comment.value };
    const buttons = form.querySelectorAll("button");
    status.textContent = "";
    buttons.forEach(function (button) { button.disabled = true; });
    api.fetchJson("/api/runs/" + form.dataset.run + "/feedback", { method: "PUT", body: body })
      .then(function (saved) {
        show(form, saved.rating);
        status.textContent = gettext("Thanks, your feedback is saved.");
      })
      .catch(function (error) {
        status.textContent = interpolate(gettext("Your feedback could not be saved: %s"), [api.reason(error)]);
      })
      .finally(function () { buttons.forEach(function (button) { button.disabled = false; }); });
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest("form.feedback .feedback-rate");
    if (button) send(button.form, button.value);
  });

  document.addEventListener("submit", function (event) {
    const form = event.target.closest("form.feedback");
    if (!form) return;
    event.preventDefault();
    if (form.dataset.rating) send(form, form.dataset.rating);
  });

  // The forms' buttons are rendered disabled: a click before this script was bound would be lost, or submit
  // the comment natively (a GET of the page with it in the URL).
  function enable(form) {
    form.querySelectorAll("button").forEach(function (button) { button.disabled = false; });
  }

  // A run that failed or was cancelled has no answer to rate.
  document.addEventListener("superbiz:run-finished", function (event) {
    if (!template || event.target === document || event.detail.outcome === "FAILED") return;
    const form = template.content.firstElementChild.cloneNode(true);
    form.dataset.run = event.detail.run_id;
    enable(form);
    event.target.appendChild(form);
  });

  document.querySelectorAll("form.feedback").forEach(enable);
})();

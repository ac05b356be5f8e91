// The chat page's session list, kept current without a reload: the server renders it (/sessions/), and the
// page asks again when a run starts (a new session appears with the title of its first question), when
// one ends (its outcome), every few seconds while a session shows the running spinner (runs started
// in another tab, or followed by no open stream), and when the tab is shown again (sessions another tab
// started). Once the sign-in has expired the fragment's address answers
// with the login page (a redirect, which fetch follows): the list is kept, a note says to sign in again, and
// nothing more is asked (its link from static/js/api.js, loaded before this script). Its texts go through
// Django's JavaScript catalogue (gettext from /jsi18n/).
(function () {
  "use strict";

  const POLL_MS = 3000;
  const box = document.getElementById("session-list");
  if (!box) return;
  let current = new URLSearchParams(box.dataset.url.split("?")[1] || "").get("session") || "";
  let timer = null;
  let signedOut = false;

  function schedule() {
    window.clearTimeout(timer);
    if (box.querySelector(".spinner")) timer = window.setTimeout(refresh, POLL_MS);
  }

  // Shown once, above the list, with a link that signs in again and comes back to this page.
  function showSignedOut() {
    signedOut = true;
    window.clearTimeout(timer);
    if (box.querySelector(".session-note")) return;
    const note = document.createElement("p");
    note.className = "session-note error";
    note.setAttribute("role", "alert");
    note.textContent = gettext("You have been signed out.") + " ";
    note.appendChild(window.superbizApi.signInAgainLink());
    box.prepend(note);
  }

  function refresh() {
    window.clearTimeout(timer);
    if (signedOut) return;
    const url = box.dataset.url.split("?")[0] + (current ? "?session=" + encodeURIComponent(current) : "");
    fetch(url, { credentials: "same-origin" })
      .then(function (response) {
        // Redirected: to the login page, whatever its answer (never put into the list). 401 and 403 say
        // the same without a redirect.
        if (response.redirected || response.status === 401 || response.status === 403) return null;
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        if (html === null) {
          showSignedOut();
          return;
        }
        box.innerHTML = html;
        schedule();
      })
      .catch(function () {
        // Keep the list as it is; try again later rather than never.
        timer = window.setTimeout(refresh, POLL_MS);
      });
  }

  document.addEventListener("superbiz:run-started", function (event) {
    current = event.detail.session_id;
    refresh();
  });
  document.addEventListener("superbiz:run-finished", refresh);
  // Back to this tab: sessions started in another one since (no spinner here asked for them) are listed.
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) refresh();
  });
  // A card whose stream ended before the run (static/js/chat.js): the list says where the run is.
  document.addEventListener("superbiz:run-interrupted", refresh);
  schedule();
})();

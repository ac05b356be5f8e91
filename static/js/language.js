// The header's language switch posts Django's set_language form as soon as a language is picked, coming
// back to the page as it is now (the chat page rewrites its address when a session starts); without
// JavaScript its button posts the address the page was rendered at.
//
// Every form of the site posts the CSRF token of the `csrftoken` cookie as it is when the form is sent, not
// the one the page was rendered with: signing in (in this tab or another) rotates the token, and a page
// rendered before it (its Log out, its language switch, an open login page) was refused with a 403. api.js
// sends the same token with its requests (`window.superbizCsrfToken`; this script runs before it).
(function () {
  "use strict";

  // The cookie's token, else (no cookie) the one a form of the page was rendered with.
  function csrfToken() {
    const cookie = (document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/) || [])[1];
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return cookie ? decodeURIComponent(cookie) : (input ? input.value : undefined);
  }
  window.superbizCsrfToken = csrfToken;

  function freshToken(form) {
    const field = form.elements.csrfmiddlewaretoken;
    const token = csrfToken();
    if (field && token) field.value = token;
  }

  // Capture: before any handler of the form, for every form of the page, those added later included.
  document.addEventListener("submit", function (event) { freshToken(event.target); }, true);

  document.querySelectorAll("form.language-switch select[name=language]").forEach(function (select) {
    select.addEventListener("change", function () {
      select.form.elements.next.value = window.location.pathname + window.location.search;
      freshToken(select.form);  // form.submit() sends no submit event
      select.form.submit();
    });
  });
})();

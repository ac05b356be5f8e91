// The header's language switch posts Django's set_language form as soon as a language is picked, coming
// back to the page as it is now (the chat page rewrites its address when a session starts); without
// JavaScript its button posts the address the page was rendered at.
(function () {
  "use strict";
  document.querySelectorAll("form.language-switch select[name=language]").forEach(function (select) {
    select.addEventListener("change", function () {
      select.form.elements.next.value = window.location.pathname + window.location.search;
      select.form.submit();
    });
  });
})();

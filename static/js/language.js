// The header's language switch posts Django's set_language form as soon as a language is picked; without
// JavaScript its button does the same.
(function () {
  "use strict";
  document.querySelectorAll("form.language-switch select[name=language]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
})();

// The chat page's session list, kept current without a reload: the server renders it (/sessions/), and the
// page asks again when a run starts (a new session appears with the title of its first question), when
// one ends (its outcome), and every few seconds while a session shows the running spinner (runs started
// in another tab, or followed by no open stream).
(function () {
  "use strict";

  const POLL_MS = 3000;
  const box = document.getElementById("session-list");
  if (!box) return;
  let current = new URLSearchParams(box.dataset.url.split("?")[1] || "").get("session") || "";
  let timer = null;

  function schedule() {
    window.clearTimeout(timer);
    if (box.querySelector(".spinner")) timer = window.setTimeout(refresh, POLL_MS);
  }

  function refresh() {
    window.clearTimeout(timer);
    const url = box.dataset.url.split("?")[0] + (current ? "?session=" + encodeURIComponent(current) : "");
    fetch(url, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
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
  schedule();
})();

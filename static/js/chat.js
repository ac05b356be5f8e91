// The chat page: submit a message, then follow the run's named SSE events until `done`.
// Plain JavaScript and the browser's EventSource; nothing is fetched from outside this server. Texts go
// through Django's JavaScript catalogue (gettext, ngettext, interpolate from /jsi18n/, loaded first); the API
// is called through static/js/api.js (loaded before this script).
(function () {
  "use strict";

  const api = window.superbizApi;

  const form = document.getElementById("chat-form");
  const input = document.getElementById("message");
  const transcript = document.getElementById("transcript");
  const errorBox = document.getElementById("form-error");
  const sendButton = document.getElementById("send");
  const isStaff = form.dataset.staff === "1";

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function link(href, text) {
    const a = element("a", "", text);
    a.href = href;
    return a;
  }

  function runCard(question) {
    const card = element("article", "run live");
    card.appendChild(element("div", "question", question));
    const progress = element("ol", "progress");
    card.appendChild(progress);
    const answer = element("div", "answer");
    card.appendChild(answer);
    const meta = element("footer", "run-meta");
    card.appendChild(meta);
    const hint = document.getElementById("empty-hint");
    if (hint) hint.remove();
    transcript.appendChild(card);
    card.scrollIntoView({ block: "end" });
    return { card, progress, answer, meta };
  }

  // The outcome badge's text in the reader's language; the badge's class and data-outcome keep the code.
  const OUTCOME_LABELS = {
    SUCCESS: pgettext("run outcome", "SUCCESS"),
    FALLBACK: pgettext("run outcome", "FALLBACK"),
    FAILED: pgettext("run outcome", "FAILED"),
  };

  function outcomeBadge(outcome) {
    const badge = element("span", "badge badge-" + outcome.toLowerCase(), OUTCOME_LABELS[outcome] || outcome);
    badge.dataset.outcome = outcome;
    return badge;
  }

  // The timeline strip and sparklines of a finished run are drawn by the server (diagnosis/figures), in the
  // reader's language, and open the answer.
  function showFigures(view, runId) {
    fetch("/runs/" + runId + "/figures", { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) {
        if (html) view.answer.insertAdjacentHTML("afterbegin", html);
      })
      .catch(function () { /* the answer stands without its pictures */ });
  }

  // Other parts of the page follow runs through these events, which bubble up to the document from their
  // target (a run's card when there is one): static/js/sidebar.js refreshes the session list, and
  // static/js/feedback.js gives a finished card its feedback form.
  function announce(name, detail, target) {
    (target || document).dispatchEvent(new CustomEvent("superbiz:" + name, { bubbles: true, detail: detail }));
  }

  function showEvidence(view, evidence) {
    if (!evidence || !evidence.length) return;
    const details = element("details", "evidence");
    const summary = ngettext("Evidence (%s verified excerpt)", "Evidence (%s verified excerpts)", evidence.length);
    details.appendChild(element("summary", "", interpolate(summary, [evidence.length])));
    const list = element("ul");
    evidence.forEach(function (item) {
      const li = element("li");
      li.appendChild(element("code", "", item.tool_name + " · " + (item.raw_path || "")));
      li.appendChild(element("blockquote", "", item.excerpt));
      list.appendChild(li);
    });
    details.appendChild(list);
    view.answer.appendChild(details);
  }

  // Once a run is done its step-by-step progress folds away under a one-line summary.
  function collapseProgress(view) {
    const steps = view.progress.children.length;
    if (!steps) return;
    const details = element("details", "progress-done");
    details.appendChild(element("summary", "", interpolate(ngettext("Progress: %s step", "Progress: %s steps", steps), [steps])));
    view.card.replaceChild(details, view.progress);
    details.appendChild(view.progress);
  }

  // While a run is live its card offers Cancel. The button only asks: the run stops at its next node
  // boundary, and the stream's `failure` and `done` show the end like any other failure.
  function offerCancel(view, runId) {
    const button = element("button", "cancel-run", gettext("Cancel"));
    button.type = "button";
    button.addEventListener("click", function () {
      button.disabled = true;
      button.textContent = gettext("Cancelling…");
      api.fetchJson("/api/runs/" + runId + "/cancel", { method: "POST", refused: gettext("refused") })
        .catch(function (error) {
          // 409: the run ended meanwhile, and its `done` is on the way.
          if (error.status === 409) return;
          button.disabled = false;
          button.textContent = gettext("Cancel");
          errorBox.textContent = interpolate(gettext("The run could not be cancelled: %s"), [error.message]);
        });
    });
    view.meta.appendChild(button);
    return button;
  }

  function follow(view, data) {
    const source = new EventSource(data.events_url);
    view.card.dataset.run = data.run_id;
    const cancelButton = offerCancel(view, data.run_id);
    const parse = function (event) { return JSON.parse(event.data); };

    source.addEventListener("status", function (event) {
      const status = parse(event);
      const line = [status.node, status.phase, status.detail].filter(Boolean).join(" · ");
      view.progress.appendChild(element("li", "", line));
    });
    source.addEventListener("content", function (event) {
      const content = parse(event);
      // The server sanitised this HTML with nh3 before sending it.
      view.answer.innerHTML = content.html;
      if (content.degraded) view.answer.classList.add("degraded");
      showEvidence(view, content.evidence);
      showFigures(view, data.run_id);
    });
    source.addEventListener("failure", function (event) {
      const failure = parse(event);
      const text = interpolate(gettext("The run failed: %(message)s (%(code)s)"), failure, true);
      view.answer.appendChild(element("p", "error", text));
    });
    source.addEventListener("done", function (event) {
      const done = parse(event);
      source.close();
      cancelButton.remove();
      view.card.classList.remove("live");
      collapseProgress(view);
      view.meta.appendChild(outcomeBadge(done.outcome));
      view.meta.appendChild(link("/api/diagnosis/" + data.session_id + "/trace?runId=" + data.run_id, gettext("trace")));
      if (isStaff) view.meta.appendChild(link("/admin/diagnosis/diagnosisrun/" + data.run_id + "/change/", gettext("audit")));
      sendButton.disabled = false;
      announce("run-finished", { session_id: data.session_id, run_id: data.run_id, outcome: done.outcome }, view.card);
    });
    source.addEventListener("stream-error", function (event) {
      source.close();
      cancelButton.remove();
      view.answer.appendChild(element("p", "error", interpolate(gettext("The event stream was refused: %s"), [event.data])));
      sendButton.disabled = false;
    });
  }

  // A run that was still going when the page was rendered is followed from its first event.
  document.querySelectorAll("article.run[data-events-url]").forEach(function (card) {
    const view = {
      card: card,
      progress: card.querySelector(".progress"),
      answer: card.querySelector(".answer"),
      meta: card.querySelector(".run-meta"),
    };
    view.answer.textContent = "";
    follow(view, { events_url: card.dataset.eventsUrl, run_id: card.dataset.run, session_id: card.dataset.session });
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const message = input.value.trim();
    errorBox.textContent = "";
    if (!message) return;
    sendButton.disabled = true;
    const body = { message: message };
    if (form.dataset.session) body.session_id = form.dataset.session;
    api.fetchJson("/api/chat", { method: "POST", body: body, refused: gettext("The message was refused.") })
      .then(function (started) {
        // On an earlier page of the session the new run belongs after the latest ones: show those.
        if (transcript.querySelector("a.latest")) {
          window.location.assign("?session=" + started.session_id);
          return;
        }
        form.dataset.session = started.session_id;
        if (window.history.replaceState) window.history.replaceState(null, "", "?session=" + started.session_id);
        input.value = "";
        follow(runCard(message), started);
        announce("run-started", started);
      })
      .catch(function (error) {
        errorBox.textContent = error instanceof api.ApiError ? error.message : gettext("The server could not be reached.");
        sendButton.disabled = false;
      });
  });
  // Rendered disabled: a click before this script was bound would submit the form natively (a GET of this
  // page with the question in its URL) and start nothing. Enabled once every deferred script of the page has
  // run, so that sidebar.js and feedback.js are listening when the first run is announced.
  document.addEventListener("DOMContentLoaded", function () { sendButton.disabled = false; });
})();

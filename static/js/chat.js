// The chat page: submit a message, then follow the run's named SSE events until `done`, or until the stream
// cannot go on (its `stream-error`, or a connection the browser gives up on or cannot get back).
// Plain JavaScript and the browser's EventSource; nothing is fetched from outside this server. Texts go
// through Django's JavaScript catalogue (gettext, ngettext, pgettext, interpolate from /jsi18n/, loaded
// first), except why a run failed and its verdict, which come from the server's own catalogue (the
// `run-texts` JSON of the page, diagnosis/views.py) so that a live card says what a reloaded one does. The
// API is called through static/js/api.js (loaded before this script).
(function () {
  "use strict";

  const api = window.superbizApi;

  const form = document.getElementById("chat-form");
  const input = document.getElementById("message");
  const transcript = document.getElementById("transcript");
  const errorBox = document.getElementById("form-error");
  const sendButton = document.getElementById("send");
  const counter = document.getElementById("message-count");
  const isStaff = form.dataset.staff === "1";
  const maxLength = Number(input.dataset.maxLength) || 8000;
  const texts = JSON.parse(document.getElementById("run-texts").textContent);

  // EventSource reconnects by itself after a dropped connection (every 3 s in Chromium), for ever: after this
  // many errors in a row without the stream opening again the page stops following the run and says so.
  const STREAM_FAILURES = 6;

  function has(table, key) {
    return Object.prototype.hasOwnProperty.call(table, key);
  }

  function label(table, code) {
    return has(table, code) ? table[code] : code;
  }

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

  // Send is offered while no run of the page is live (another card's end must not offer it during this one).
  function offerSend() {
    sendButton.disabled = transcript.querySelector(".run.live") !== null;
  }

  function verdictBadge(verdict) {
    const text = has(texts.verdicts, verdict) ? texts.verdicts[verdict] : verdict;
    const badge = element("span", "badge badge-verdict", text);
    badge.dataset.verdict = verdict;
    return badge;
  }

  // Why a run failed, by the `failure` event's code: the sentence a reloaded card shows (templates/diagnosis/
  // _run.html); the event's `message` is the worker's, in English, for the API.
  function failureLine(code) {
    const text = has(texts.failures, code) ? texts.failures[code] : interpolate(texts.unknown_failure, { code: code || "?" }, true);
    const line = element("p", "error failure", text);
    line.dataset.code = code;
    line.title = code;
    return line;
  }

  // A status event's line: node · phase · detail, the phase and the detail in the reader's language, made
  // from the event's `args` (diagnosis/progress.py); node and tool names, codes and numbers stay as they are.
  // An event without `args` (stored before they were added), or of a phase or shape this page does not know,
  // shows what the worker wrote.
  const PHASES = {
    started: pgettext("progress phase", "started"),
    completed: pgettext("progress phase", "completed"),
    finished: pgettext("progress phase", "finished"),
    tool: pgettext("progress phase", "tool"),
    evidence: pgettext("progress phase", "evidence"),
    semantic_guard: pgettext("progress phase", "semantic check"),
    release: pgettext("progress phase", "release"),
  };
  const PLANNER_MODES = {
    normal: pgettext("planner mode", "full plan"),
    evidence_gap_only: pgettext("planner mode", "evidence gaps only"),
  };
  // A node attempt's outcome (tracing/outcomes.py, diagnosis/graph/topology.py); the gatekeeper's PASS,
  // LOW_CONFID and REJECT read as the verdicts do.
  const NODE_OUTCOMES = Object.assign({}, texts.verdict_labels, {
    COMPLETED: pgettext("node outcome", "completed"),
    INVALID_OUTPUT: pgettext("node outcome", "invalid output"),
    RETRYABLE_FAILED: pgettext("node outcome", "failed (retryable)"),
    NON_RETRYABLE_FAILED: pgettext("node outcome", "failed (not retryable)"),
    TOOL_BLOCKED: pgettext("node outcome", "tool blocked"),
    FAILED: pgettext("node outcome", "failed"),
    UNKNOWN: pgettext("node outcome", "unknown"),
  });
  const TOOL_STATUSES = {
    READY: pgettext("tool status", "ready"),
    FAILED: pgettext("tool status", "failed"),
    BLOCKED: pgettext("tool status", "blocked"),
  };
  const SEMANTIC_VERDICTS = {
    RELEASE: pgettext("semantic check", "passed"),
    BLOCK: pgettext("semantic check", "blocked"),
    FAILED: pgettext("semantic check", "failed, blocked"),
  };
  const RELEASE_DECISIONS = {
    released: pgettext("release decision", "released"),
    blocked: pgettext("release decision", "blocked"),
  };

  function progressDetail(status) {
    const args = status.args;
    if (!args || typeof args !== "object") return status.detail;
    switch (status.phase) {
      case "started":
      case "completed":
        if (args.attempt !== undefined && args.mode) {
          const values = { mode: label(PLANNER_MODES, args.mode), attempt: args.attempt };
          return interpolate(gettext("%(mode)s, attempt %(attempt)s"), values, true);
        }
        if (args.attempt !== undefined) return interpolate(gettext("attempt %s"), [args.attempt]);
        if (args.excerpts !== undefined) {
          return interpolate(ngettext("%s cited excerpt", "%s cited excerpts", args.excerpts), [args.excerpts]);
        }
        return status.detail;
      case "finished":
        return label(NODE_OUTCOMES, args.outcome);
      case "tool":
        return args.tool + " " + label(TOOL_STATUSES, args.status);
      case "evidence": {
        const verified = ngettext("%(passed)s of %(total)s claim verified", "%(passed)s of %(total)s claims verified", args.total);
        return interpolate(verified, args, true);
      }
      case "semantic_guard":
        return label(SEMANTIC_VERDICTS, args.verdict);
      case "release": {
        const decision = label(RELEASE_DECISIONS, args.decision);
        if (!args.rule || args.rule === "passed") return decision;
        return interpolate(gettext("%(decision)s (%(rule)s)"), { decision: decision, rule: args.rule }, true);
      }
      default:
        return status.detail;
    }
  }

  function progressLine(status) {
    const line = [status.node, label(PHASES, status.phase), progressDetail(status)].filter(Boolean).join(" · ");
    const item = element("li", "", line);
    item.dataset.node = status.node || "";
    item.dataset.phase = status.phase || "";
    return item;
  }

  // The timeline strip and sparklines of a finished run are drawn by the server (diagnosis/figures), in the
  // reader's language, and open the answer.
  function showFigures(view, runId) {
    fetch("/runs/" + runId + "/figures", { credentials: "same-origin" })
      // Signed out meanwhile: the view redirects to the sign-in page, which is no picture of the run.
      .then(function (response) { return response.ok && !response.redirected ? response.text() : ""; })
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
          // 409: the run ended meanwhile; there is nothing left to cancel, and its `done` is on the way (or,
          // with the stream down, the card ends on its own).
          // Ended meanwhile (409, or its `done` came while the request failed): nothing is left to cancel.
          if (error.status === 409 || !button.isConnected) {
            button.remove();
            return;
          }
          button.disabled = false;
          button.textContent = gettext("Cancel");
          const reason = api.reason(error);
          errorBox.textContent = interpolate(gettext("The run could not be cancelled: %s"), [reason]);
        });
    });
    view.meta.appendChild(button);
    return button;
  }

  // Why the stream could not go on, by the `stream-error` condition django-eventstream sends
  // (diagnosis/sse/views.py): the JSON's `text` is the library's, in English, for the console.
  const STREAM_ERRORS = {
    forbidden: gettext("This page may no longer follow the run: you may have been signed out."),
    "bad-request": gettext("The server would not resume this run's progress."),
  };

  // A hidden page holds no stream. A browser keeps at most six connections to a server over HTTP/1.1, for all
  // of its tabs, and each live run's stream holds one: two tabs of three live runs each left none for Cancel,
  // the sidebar or a page load until a run ended. A card's stream closes when its page is hidden and opens
  // again, after the last event the card applied (the stream's exactly-once replay), when it is shown.
  function resumeUrl(eventsUrl, lastId) {
    return lastId ? eventsUrl.split("?")[0] + "?lastEventId=" + encodeURIComponent(lastId) : eventsUrl;
  }

  function follow(view, data) {
    let source = null;
    let lastId = "";
    view.card.dataset.run = data.run_id;
    const cancelButton = offerCancel(view, data.run_id);
    const note = element("p", "stream-note");
    note.setAttribute("role", "status");
    note.hidden = true;
    view.card.insertBefore(note, view.answer);
    const parse = function (event) { return JSON.parse(event.data); };
    let failures = 0;
    let ended = false;
    let verdict = "";

    // Every end of the card, the run's `done` or the stream's: nothing more is read, Cancel goes, the
    // progress folds away, the run's links show and Send is offered again.
    function end(badge) {
      ended = true;
      if (source) source.close();
      document.removeEventListener("visibilitychange", followWhileShown);
      cancelButton.remove();
      note.remove();
      view.card.classList.remove("live");
      collapseProgress(view);
      view.meta.appendChild(badge);
      if (verdict) view.meta.appendChild(verdictBadge(verdict));
      view.meta.appendChild(link("/api/diagnosis/" + data.session_id + "/trace?runId=" + data.run_id, gettext("trace")));
      if (isStaff) view.meta.appendChild(link("/admin/diagnosis/diagnosisrun/" + data.run_id + "/change/", gettext("audit")));
      offerSend();
    }

    // The stream ended before the run did, as far as this page knows: the card says why and offers the page
    // again, which shows the run as the server has it (still running and followed anew, or ended).
    function interrupt(reason, condition) {
      if (ended) return;
      const line = element("p", "error stream-ended", reason + " ");
      if (condition) line.dataset.condition = condition;
      line.appendChild(link("?session=" + encodeURIComponent(data.session_id), gettext("Reload the page")));
      view.answer.appendChild(line);
      end(element("span", "badge badge-interrupted", pgettext("run card", "INTERRUPTED")));
      announce("run-interrupted", { session_id: data.session_id, run_id: data.run_id }, view.card);
    }

    function followWhileShown() {
      if (document.hidden && source) {
        source.close();
        source = null;
        note.hidden = true;
      } else if (!document.hidden && !source && !ended) {
        failures = 0;
        connect();
      }
    }

    // One of the run's events, applied once: the stream that opens next resumes after it.
    function on(name, apply) {
      source.addEventListener(name, function (event) {
        if (event.lastEventId) lastId = event.lastEventId;
        apply(event);
      });
    }

    function connect() {
      source = new EventSource(resumeUrl(data.events_url, lastId));
      source.addEventListener("open", function () {
        failures = 0;
        note.hidden = true;
      });
      // A connection that failed or dropped. CLOSED: the browser gives up by itself (an answer that is no event
      // stream: a proxy's 502, a login page); CONNECTING: it tries again in a few seconds, which the card says
      // while it lasts, up to STREAM_FAILURES errors in a row.
      source.addEventListener("error", function () {
        if (ended) return;
        failures += 1;
        if (source.readyState === EventSource.CLOSED || failures >= STREAM_FAILURES) {
          interrupt(gettext("The connection to the server was lost, and this page stopped following the run; it may still be running."));
          return;
        }
        note.textContent = gettext("Connection lost; reconnecting…");
        note.hidden = false;
      });
      on("status", function (event) {
        view.progress.appendChild(progressLine(parse(event)));
      });
      on("content", function (event) {
        const content = parse(event);
        // The server sanitised this HTML with nh3 before sending it.
        view.answer.innerHTML = content.html;
        if (content.degraded) view.answer.classList.add("degraded");
        verdict = content.effective_verdict || "";
        showEvidence(view, content.evidence);
        showFigures(view, data.run_id);
      });
      on("failure", function (event) {
        view.answer.appendChild(failureLine(parse(event).code));
      });
      on("done", function (event) {
        const done = parse(event);
        end(outcomeBadge(done.outcome));
        announce("run-finished", { session_id: data.session_id, run_id: data.run_id, outcome: done.outcome }, view.card);
      });
      source.addEventListener("stream-error", function (event) {
        let condition = "";
        try {
          condition = JSON.parse(event.data).condition || "";
        } catch (error) {
          // Not the library's JSON: said as an unknown condition.
        }
        interrupt(has(STREAM_ERRORS, condition) ? STREAM_ERRORS[condition] : gettext("The server could not send this run's progress."), condition);
      });
    }

    document.addEventListener("visibilitychange", followWhileShown);
    if (!document.hidden) connect();
  }

  // A run that was still going when the page was rendered is followed from its first event, once every
  // deferred script of the page has run (see offerSend below): a `done` replayed before feedback.js listened
  // would leave the finished card without its feedback form.
  function followLiveRuns() {
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
  }

  // The server refuses a question over its limit (`message_too_long`), and a `maxlength` would cut a longer
  // paste without a word: the count shows from 90 % of the limit on, and a longer question is not sent. It
  // counts as the server does: characters (code points), without the blanks around the question.
  // The question as the server reads it: Python's str.strip() takes off what str.isspace() calls space,
  // which JavaScript's trim() does not quite (the information separators and U+0085 are Python's too; U+FEFF
  // is JavaScript's alone), so the counter and the server agree at the limit.
  const PYTHON_SPACE = "[\\t-\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
  const EDGE_SPACE = new RegExp("^" + PYTHON_SPACE + "+|" + PYTHON_SPACE + "+$", "g");

  function question() {
    return input.value.replace(EDGE_SPACE, "");
  }

  function messageLength() {
    return Array.from(question()).length;
  }

  function showCount() {
    const count = messageLength();
    const over = count > maxLength;
    if (over) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    counter.className = over ? "error" : "muted";
    const values = { count: count, max: maxLength };
    if (over) counter.textContent = interpolate(gettext("%(count)s / %(max)s characters: too long to send"), values, true);
    else if (count >= maxLength * 0.9) counter.textContent = interpolate(gettext("%(count)s / %(max)s characters"), values, true);
    else counter.textContent = "";
  }

  input.addEventListener("input", showCount);

  // Ctrl+Enter (⌘+Enter on a Mac) sends, as the Send button does; Enter alone starts a new line.
  input.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
    event.preventDefault();
    if (sendButton.disabled) return;
    if (form.requestSubmit) form.requestSubmit(sendButton);
    else sendButton.click();
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const message = question();
    errorBox.textContent = "";
    if (!message) {
      errorBox.textContent = gettext("message must not be empty");
      input.focus();
      return;
    }
    const length = messageLength();
    if (length > maxLength) {
      const values = { count: length, max: maxLength };
      errorBox.textContent = interpolate(gettext("The question is %(count)s characters long; shorten it to %(max)s or fewer."), values, true);
      input.focus();
      return;
    }
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
        showCount();
        follow(runCard(message), started);
        announce("run-started", started);
      })
      .catch(function (error) {
        errorBox.textContent = api.reason(error);
        // Signed out in another tab: the way back, as the session list offers it (static/js/sidebar.js).
        if (error.code === "not_authenticated") errorBox.append(" ", api.signInAgainLink());
        offerSend();
      });
  });
  // Rendered disabled: a click before this script was bound would submit the form natively (a GET of this
  // page with the question in its URL) and start nothing. Offered once every deferred script of the page has
  // run, so that sidebar.js and feedback.js are listening when the first run is announced.
  document.addEventListener("DOMContentLoaded", function () {
    followLiveRuns();
    offerSend();
  });
})();

// How the pages' scripts call this server's JSON API (chat.js, feedback.js, knowledge.js): one place for the
// CSRF token Django wants on every unsafe request and for reading the API's error shape,
// `{"error": {"code", "message"}}`, into an error a page can show. Load it before them, deferred like them
// (deferred scripts run in document order). Its texts of its own (`reason`, `signInAgainLink`) are in the pages'
// catalogue.
(function () {
  "use strict";

  // The cookie first: signing in again (in another tab) gives the session a new secret, which the forms'
  // masked copies rendered before it no longer match (language.js, loaded on every page before this).
  const csrfToken = window.superbizCsrfToken;

  // A refusal by the server: `message` is the API's own (already in the reader's language), else the
  // caller's fallback, else the HTTP status; `status` lets a caller take one as expected (Cancel's 409), and
  // `code` is the API's error code when it gave one (`not_authenticated`: signed out in another tab).
  class ApiError extends Error {
    constructor(message, status, code) {
      super(message);
      this.name = "ApiError";
      this.status = status;
      this.code = code || "";
    }
  }

  // The body as JSON; null when there is none (204) or, on a refusal, when it is not JSON (a proxy's page).
  // An answer that is not JSON although it says OK (a sign-in page a proxy or an expired session sent
  // instead) is no answer of this API: a refusal, with the caller's words.
  function readBody(response, refused) {
    return response.text().then(function (text) {
      if (!text) return null;
      try {
        return JSON.parse(text);
      } catch (error) {
        if (response.ok) throw new ApiError(refused || "HTTP " + response.status, response.status);
        return null;
      }
    });
  }

  // Sends `body` (JSON, or FormData as it is) with the CSRF token and resolves with the reply's JSON (null
  // without one). A refusal rejects with an ApiError; a server that cannot be reached rejects with fetch's
  // TypeError, so a caller can tell the two apart. `refused`: the message for a refusal that gives none.
  function fetchJson(url, options) {
    const settings = options || {};
    const init = { method: settings.method || "GET", headers: { "X-CSRFToken": csrfToken() }, credentials: "same-origin" };
    if (settings.body instanceof FormData) {
      init.body = settings.body;
    } else if (settings.body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(settings.body);
    }
    return fetch(url, init).then(function (response) {
      return readBody(response, settings.refused).then(function (json) {
        if (response.ok) return json;
        const error = json && json.error;
        const message = (error && error.message) || settings.refused || response.statusText || "HTTP " + response.status;
        throw new ApiError(message, response.status, error && error.code);
      });
    });
  }

  // What to tell the reader of a failed call: the server's refusal, or that it could not be reached (fetch's
  // own TypeError says so in the browser's language and words: "Failed to fetch").
  function reason(error) {
    return error instanceof ApiError ? error.message : gettext("The server could not be reached.");
  }

  // The way back once the sign-in has expired (signed out in another tab): this page again, which asks for it.
  function signInAgainLink() {
    const again = document.createElement("a");
    again.href = window.location.pathname + window.location.search;
    again.textContent = gettext("Reload the page to sign in again.");
    return again;
  }

  window.superbizApi = Object.freeze({
    fetchJson: fetchJson,
    ApiError: ApiError,
    reason: reason,
    signInAgainLink: signInAgainLink,
  });
})();

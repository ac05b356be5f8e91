// The knowledge page: upload by drag and drop (or the file chooser) through POST /api/upload, several files at
// once; archive, restore and delete through the documents API. The texts this script shows go through Django's
// JavaScript catalogue (gettext, interpolate from /jsi18n/, loaded first); the API is called through
// static/js/api.js (loaded before this script).
(function () {
  "use strict";

  const api = window.superbizApi;
  const uploadForm = document.getElementById("upload-form");
  const table = document.getElementById("documents");

  // One upload at a time: a success reloads the page, which would cut a second one off half-way.
  let uploading = false;

  function upload(files) {
    const status = document.getElementById("upload-status");
    if (!files.length || uploading) return;
    uploading = true;
    document.getElementById("upload-files").disabled = true;
    const body = new FormData();
    Array.prototype.forEach.call(files, function (file) { body.append("file", file); });
    body.append("category", uploadForm.elements.category.value);
    body.append("fault_source", uploadForm.elements.fault_source.value);
    status.className = "muted";
    status.textContent = gettext("Uploading…");
    api.fetchJson("/api/upload", { method: "POST", body: body })
      .then(function () {
        status.textContent = gettext("Uploaded; searchable now.");
        window.location.reload();
      })
      .catch(function (error) {
        status.className = "error";
        status.textContent = interpolate(gettext("Upload refused: %s"), [api.reason(error)]);
        uploading = false;
        document.getElementById("upload-files").disabled = false;
      });
  }

  if (uploadForm) {
    uploadForm.addEventListener("dragover", function (event) {
      event.preventDefault();
      uploadForm.classList.add("dragging");
    });
    uploadForm.addEventListener("dragleave", function () { uploadForm.classList.remove("dragging"); });
    uploadForm.addEventListener("drop", function (event) {
      event.preventDefault();
      uploadForm.classList.remove("dragging");
      upload(event.dataTransfer.files);
    });
    document.getElementById("upload-files").addEventListener("change", function (event) {
      upload(event.target.files);
      event.target.value = "";  // choosing the same file again, after a refusal, is a change again
    });
  }

  function change(row, method, body) {
    api.fetchJson("/api/documents/" + row.dataset.document, { method: method, body: body })
      .then(function () { window.location.reload(); })
      .catch(function (error) { window.alert(interpolate(gettext("The document could not be changed: %s"), [api.reason(error)])); });
  }

  table.addEventListener("click", function (event) {
    const row = event.target.closest("tr[data-document]");
    if (!row) return;
    if (event.target.matches(".doc-status-change")) change(row, "PATCH", { status: event.target.value });
    if (event.target.matches(".doc-delete") && window.confirm(gettext("Delete this document? It is gone from search at once."))) change(row, "DELETE");
  });

  // The file chooser and the documents' buttons are rendered disabled: what was chosen or clicked before this
  // script was bound would be lost. The drop zone is ready once the chooser is.
  table.querySelectorAll("button").forEach(function (button) { button.disabled = false; });
  if (uploadForm) document.getElementById("upload-files").disabled = false;
})();

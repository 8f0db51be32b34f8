// Updates the messenger preview as the new link's fields are typed. The page works without it.
(function () {
  var form = document.getElementById("new-link");
  var preview = document.getElementById("preview");
  if (!form || !preview) return;
  function text(selector, value) { preview.querySelector(selector).textContent = value; }
  function update() {
    var domain = form.elements.domain.value;
    text(".preview-site", domain.toUpperCase());
    text(".preview-title", form.elements.title.value || preview.getAttribute("data-app-name") || domain);
    text(".preview-description", form.elements.description.value);
  }
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
})();

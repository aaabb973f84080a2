/* comprules: the "go to rule" box, and anchors of sections split over several pages.
   No network, no dependencies: works opened from disk (file://). */
(function () {
  "use strict";

  /* "702.37a", "R70237a", "rule 702.37a", "702.37." -> {number, section, rule}; else null. */
  function parse(text) {
    var s = String(text || "").trim().replace(/^(rules?|r[èe]gles?)\s+/i, "").replace(/\.$/, "");
    var m = /^R(\d)(\d\d)?(\d+)?([a-z]{0,2})$/.exec(s);
    if (m) {
      if (!m[2]) { if (m[3] || m[4]) return null; s = m[1]; }
      else if (!m[3]) { if (m[4]) return null; s = m[1] + m[2]; }
      else s = m[1] + m[2] + "." + m[3] + m[4];
    }
    m = /^(\d)(\d\d)?(?:\.(\d+)([a-z]{0,2}))?$/.exec(s.toLowerCase());
    if (!m) return null;
    return {
      number: s.toLowerCase(),
      chapter: m[1],
      section: m[2] ? m[1] + m[2] : null,
      rule: m[3] ? parseInt(m[3], 10) : null
    };
  }

  function href(base, fragment, ref) {
    if (fragment || !ref.section) return base + "index.html#" + ref.number;
    if (ref.rule === null) return base + ref.section + ".html";
    return base + ref.section + ".html#" + ref.number;
  }

  function wire(form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var input = form.querySelector("input");
      var ref = parse(input.value);
      if (!ref) { form.classList.add("bad"); input.focus(); return; }
      form.classList.remove("bad");
      window.location.href = href(form.getAttribute("data-base") || "",
                                  form.hasAttribute("data-fragment"), ref);
    });
  }

  /* A permalink 702.html#702.150a whose rule lives on a later part of the section. */
  function followSplit() {
    var body = document.body;
    var parts = body.getAttribute("data-parts");
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (!id || document.getElementById(id)) return;
    var ref = parse(id);
    if (!ref) return;
    if (!parts || ref.section !== body.getAttribute("data-section") || ref.rule === null) {
      if (ref.number !== id && document.getElementById(ref.number)) window.location.hash = ref.number;
      return;
    }
    var starts = parts.split(" ").map(Number), k = 0;
    for (var i = 0; i < starts.length; i++) if (ref.rule >= starts[i]) k = i;
    var page = ref.section + (k ? "-" + (k + 1) : "") + ".html";
    var here = window.location.pathname.split("/").pop();
    if (page !== here) window.location.replace(page + "#" + ref.number);
  }

  if (typeof module !== "undefined" && module.exports) {  /* tests (node) */
    module.exports = { parse: parse, href: href };
    return;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form.goto");
    for (var i = 0; i < forms.length; i++) wire(forms[i]);
    followSplit();
  });
  window.addEventListener("hashchange", followSplit);
})();

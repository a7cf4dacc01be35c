// errdex: small comforts on top of pages that work without JavaScript.
"use strict";

(function () {
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Older browsers and plain-HTTP hosts: copy through a hidden selection.
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  function addCopyButton(block) {
    var pre = block.querySelector("pre");
    if (!pre) { return; }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy code");
    var status = document.createElement("span");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    button.addEventListener("click", function () {
      copyText(pre.innerText.replace(/\n$/, "")).then(function () {
        button.textContent = "Copied";
        status.textContent = "Code copied";
      }, function () {
        button.textContent = "Press Ctrl+C";
        var range = document.createRange();
        range.selectNodeContents(pre);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      });
      window.setTimeout(function () {
        button.textContent = "Copy";
        status.textContent = "";
      }, 2000);
    });
    block.appendChild(button);
    block.appendChild(status);
  }

  document.querySelectorAll(".copyable").forEach(addCopyButton);
})();

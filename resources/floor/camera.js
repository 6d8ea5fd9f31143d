/* The floor page's camera (Reglamento de Casinos de Juego, art. 22.4: the card checked
 * where it is shown): the rear camera, and the card's QR read with the browser's own
 * BarcodeDetector when it has qr_code, else with jsQR (vendor/jsQR.js, loaded only then)
 * on frames drawn to a canvas every 150 ms. window.floorCamera.
 */
(function () {
  "use strict";

  var SCAN_EVERY_MS = 150;

  var camera = { stream: null, timer: 0, busy: false, decoder: "" };

  function loadJsQR() {
    if (window.jsQR) return Promise.resolve(window.jsQR);
    if (loadJsQR.pending) return loadJsQR.pending;
    loadJsQR.pending = new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = "/static/vendor/jsQR.js";
      s.onload = function () { resolve(window.jsQR); };
      s.onerror = function () { loadJsQR.pending = null; reject(new Error("jsQR")); };
      document.head.appendChild(s);
    });
    return loadJsQR.pending;
  }

  function makeDecoder() {
    if ("BarcodeDetector" in window && window.BarcodeDetector.getSupportedFormats) {
      return window.BarcodeDetector.getSupportedFormats().then(function (formats) {
        if (formats.indexOf("qr_code") < 0) throw new Error("no qr_code");
        var det = new window.BarcodeDetector({ formats: ["qr_code"] });
        camera.decoder = "BarcodeDetector";
        return function (video) {
          return det.detect(video).then(function (found) { return found.length ? found[0].rawValue : null; });
        };
      }).catch(jsQRDecoder);
    }
    return jsQRDecoder();
  }

  function jsQRDecoder() {
    return loadJsQR().then(function (jsQR) {
      var canvas = document.getElementById("grab");
      var ctx = canvas.getContext("2d", { willReadFrequently: true });
      camera.decoder = "jsQR";
      return function (video) {
        // the middle of the picture at full resolution: where the page's frame asks for
        // the QR (a 24 mm code at 20 cm is ~2 pixels a module in 1280 x 720: no scaling)
        var w = video.videoWidth;
        var h = video.videoHeight;
        if (!w || !h) return Promise.resolve(null);
        var sw = Math.round(w * 0.6);
        var sh = Math.round(h * 0.8);
        canvas.width = sw;
        canvas.height = sh;
        ctx.drawImage(video, Math.round((w - sw) / 2), Math.round((h - sh) / 2), sw, sh, 0, 0, sw, sh);
        var img = ctx.getImageData(0, 0, sw, sh);
        var found = jsQR(img.data, img.width, img.height, { inversionAttempts: "dontInvert" });
        return Promise.resolve(found ? found.data : null);
      };
    });
  }

  /* Opens the rear camera into ``video`` and reads codes every SCAN_EVERY_MS until one
   * is read: onCode(text) then, the camera already stopped. onState("on" | "off" |
   * "denied") says what the person sees. */
  function start(video, onCode, onState) {
    if (camera.stream) return;
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      onState("off");
      return;
    }
    var wanted = { video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 } }, audio: false };
    navigator.mediaDevices.getUserMedia(wanted).then(function (stream) {
      if (!video.isConnected || video.closest("[hidden]")) {
        stream.getTracks().forEach(function (tr) { tr.stop(); }); // the screen changed meanwhile
        return;
      }
      camera.stream = stream;
      video.srcObject = stream;
      onState("on");
      return video.play().then(makeDecoder).then(function (decode) {
        if (camera.stream) camera.timer = setInterval(tick, SCAN_EVERY_MS, video, decode, onCode);
      });
    }).catch(function () {
      onState("denied");
    });
  }

  function tick(video, decode, onCode) {
    if (camera.busy || !camera.stream) return;
    camera.busy = true;
    decode(video).then(function (text) {
      camera.busy = false;
      if (text && camera.stream) {
        stop(video); // stop once read
        onCode(text);
      }
    }, function () { camera.busy = false; });
  }

  function stop(video) {
    if (camera.timer) clearInterval(camera.timer);
    camera.timer = 0;
    if (camera.stream) camera.stream.getTracks().forEach(function (tr) { tr.stop(); });
    camera.stream = null;
    camera.busy = false;
    video.srcObject = null;
  }

  window.floorCamera = {
    start: start,
    stop: stop,
    decoder: function () { return camera.decoder; }
  };
})();

/* The floor phone page: staff and inspectors check entry cards where players are
 * (Reglamento de Casinos de Juego, art. 22.4). Served with a CSP that forbids inline
 * script and style, so every handler is attached here.
 *
 * Online, a check asks the desk's floor service (GET /api/cards/{code}). When the
 * network fails (not on an HTTP error), an ADM2 code is checked here: its Ed25519
 * signature under a public key fetched at sign-in, the casino, the validity against
 * today in Europe/Madrid and the signed list of voided cards. The check is kept and
 * sent to the service's audit trail when the network is back.
 *
 * localStorage holds only: the place, the language, the public keys, the signed void
 * list (verified before it is stored and again before use) and the pending offline
 * checks (code, time, answer, place). Never a name.
 */
(function () {
  "use strict";

  var KEYS = "floor.keys";
  var VOIDS = "floor.voids";
  var PENDING = "floor.pending";
  var PLACE = "floor.place";
  var WHO = "floor.who";
  var LANG = "floor.lang";
  var CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  var MAX_CODE = 256; // longer text is refused before any parsing
  var MAX_PENDING = 1000;
  var BATCH = 200; // the service takes at most 200 offline checks per request
  var SCAN_EVERY_MS = 150;
  var EPOCH_2000 = Date.UTC(2000, 0, 1);
  var DAY_MS = 86400000;
  var TZ = "Europe/Madrid";

  var GOOD = { VALID: 1 };
  var BAD = { VOID: 1, FORGED: 1, NOT_THIS_CASINO: 1, NOT_A_CARD: 1 };

  // ---------------------------------------------------------------- bytes

  function utf8(text) {
    return new TextEncoder().encode(text);
  }

  function concat(a, b) {
    var out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }

  function b64urlDecode(text) {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) {
      throw new Error("base64url");
    }
    var b64 = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var bin = atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function hex(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return s;
  }

  // ---------------------------------------------------------------- ADM2 (contract section 1)

  /* Crockford base-32, most significant bit first, 5 bits a character; the padding bits
   * of the last character must be zero and fewer than 5 (one canonical text per code). */
  function crockfordDecode(text) {
    var bits = 0;
    var acc = 0;
    var out = [];
    for (var i = 0; i < text.length; i++) {
      var v = CROCKFORD.indexOf(text.charAt(i));
      if (v < 0) return null;
      acc = ((acc << 5) | v) & 0x1fff;
      bits += 5;
      if (bits >= 8) {
        bits -= 8;
        out.push((acc >> bits) & 0xff);
      }
    }
    if (bits >= 5 || (acc & ((1 << bits) - 1)) !== 0) return null;
    return new Uint8Array(out);
  }

  function ascii(bytes, start, length, pattern) {
    var s = "";
    for (var i = start; i < start + length; i++) s += String.fromCharCode(bytes[i]);
    return pattern.test(s) ? s : null;
  }

  /* The code's text as typed or scanned -> its fields, or null when it is not an ADM2
   * code. Case is folded, O read as 0, I and L as 1, and "'" (a US keyboard wedge on a
   * Spanish PC) as "-". */
  function decodeAdm2(text) {
    if (typeof text !== "string" || text.length > MAX_CODE) return null;
    var t = text.trim().toUpperCase().replace(/'/g, "-");
    if (t.slice(0, 5) !== "ADM2-") return null;
    var body = t.slice(5).replace(/O/g, "0").replace(/[IL]/g, "1");
    var data = crockfordDecode(body);
    if (!data || data.length < 64 + 4 + 2 + 5 + 1 + 4 + 4) return null;
    var p = 0;
    var keyId = hex(data.subarray(0, 4));
    p = 4;
    var n = data[p++];
    if (n < 1 || n > 8 || p + n > data.length) return null;
    var casino = ascii(data, p, n, /^[A-Z0-9]+$/);
    if (casino === null) return null;
    p += n;
    if (p + 5 > data.length) return null;
    var number = 0;
    for (var i = 0; i < 5; i++) number = number * 256 + data[p + i];
    p += 5;
    if (number < 1 || number > 9999999999) return null;
    var m = data[p++];
    if (m > 16 || p + m > data.length) return null;
    var cardType = ascii(data, p, m, /^[\x20-\x7e]*$/);
    if (cardType === null) return null;
    p += m;
    if (p + 8 > data.length) return null;
    var from = (data[p] << 8) | data[p + 1];
    var until = (data[p + 2] << 8) | data[p + 3];
    p += 4;
    var holder = hex(data.subarray(p, p + 4));
    p += 4;
    if (until < from || data.length !== p + 64) return null;
    return {
      keyId: keyId,
      casino: casino,
      number: number,
      cardType: cardType,
      validFrom: from,
      validUntil: until,
      holderDigest: holder,
      payload: data.slice(0, p),
      signature: data.slice(p)
    };
  }

  function looksLikeAdm1(text) {
    return typeof text === "string" && /^ADM1['-]/i.test(text.trim());
  }

  function isoOfDays(days) {
    return new Date(EPOCH_2000 + days * DAY_MS).toISOString().slice(0, 10);
  }

  /* Today in Europe/Madrid as days since 2000-01-01 (the casino's calendar, whatever the
   * phone's own time zone). */
  function madridDays(now) {
    var parts = new Intl.DateTimeFormat("en-CA", {
      timeZone: TZ, year: "numeric", month: "2-digit", day: "2-digit"
    }).formatToParts(now || new Date());
    var f = {};
    parts.forEach(function (x) { f[x.type] = x.value; });
    return Math.round((Date.UTC(+f.year, +f.month - 1, +f.day) - EPOCH_2000) / DAY_MS);
  }

  function ed25519Verify(publicKey, signature, data) {
    return crypto.subtle
      .importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"])
      .then(function (key) {
        return crypto.subtle.verify({ name: "Ed25519" }, key, signature, data);
      })
      .catch(function () { return false; });
  }

  /* keys: {casino_id, keys: [{key_id, public_key}]} as /api/keys answers. */
  function findKey(keys, keyId) {
    var list = (keys && keys.keys) || [];
    for (var i = 0; i < list.length; i++) {
      if (list[i].key_id === keyId) return list[i];
    }
    return null;
  }

  /* The signed void list -> its parsed body, or null when its signature, key, format or
   * casino is not right. */
  function verifyVoids(keys, signed) {
    try {
      if (!signed || typeof signed.body !== "string") return Promise.resolve(null);
      var key = findKey(keys, signed.key_id);
      if (!key) return Promise.resolve(null);
      var pub = b64urlDecode(key.public_key);
      var sig = b64urlDecode(signed.signature);
      if (pub.length !== 32 || sig.length !== 64) return Promise.resolve(null);
      return ed25519Verify(pub, sig, utf8(signed.body)).then(function (ok) {
        if (!ok) return null;
        var body = JSON.parse(signed.body);
        if (body.format !== "adm-voids-1" || body.casino_id !== keys.casino_id) return null;
        if (!Array.isArray(body.voided) || typeof body.issued_at !== "string") return null;
        return body;
      });
    } catch (e) {
      return Promise.resolve(null);
    }
  }

  /* The offline check of one code: the same answers as the service, or OFFLINE_ADM1 for
   * an old HMAC code (only the desk holds its key), or NO_LIST without a verified list. */
  function verifyOffline(text, keys, signedVoids, now) {
    var code = decodeAdm2(text);
    if (!code) {
      return Promise.resolve({ answer: looksLikeAdm1(text) ? "OFFLINE_ADM1" : "NOT_A_CARD" });
    }
    if (!keys || !keys.casino_id) return Promise.resolve({ answer: "NO_LIST" });
    var facts = {
      answer: "",
      card_number: code.number,
      card_type: code.cardType,
      valid_from: isoOfDays(code.validFrom),
      valid_until: isoOfDays(code.validUntil),
      key_id: code.keyId
    };
    if (code.casino !== keys.casino_id) {
      return Promise.resolve({ answer: "NOT_THIS_CASINO" });
    }
    var key = findKey(keys, code.keyId);
    if (!key) return Promise.resolve({ answer: "FORGED" });
    var pub;
    try {
      pub = b64urlDecode(key.public_key);
    } catch (e) {
      return Promise.resolve({ answer: "FORGED" });
    }
    var message = concat(utf8("ADM2\0"), code.payload);
    return ed25519Verify(pub, code.signature, message).then(function (ok) {
      if (!ok) return { answer: "FORGED" };
      return verifyVoids(keys, signedVoids).then(function (voids) {
        if (!voids) return { answer: "NO_LIST" };
        facts.list_issued_at = voids.issued_at;
        var today = madridDays(now);
        if (voids.voided.indexOf(code.number) >= 0) facts.answer = "VOID";
        else if (today < code.validFrom) facts.answer = "NOT_YET_VALID";
        else if (today > code.validUntil) facts.answer = "EXPIRED";
        else facts.answer = "VALID";
        return facts;
      });
    });
  }

  // ---------------------------------------------------------------- storage

  function load(name, fallback) {
    try {
      var v = localStorage.getItem(name);
      return v === null ? fallback : JSON.parse(v);
    } catch (e) {
      return fallback;
    }
  }

  function save(name, value) {
    try {
      localStorage.setItem(name, JSON.stringify(value));
    } catch (e) { /* storage full or denied: the page still checks online */ }
  }

  // ---------------------------------------------------------------- texts

  var texts = {};
  var lang = "es";

  function t(key, args) {
    var s = (texts[lang] && texts[lang][key]) || (texts.es && texts.es[key]) || key;
    if (args) {
      Object.keys(args).forEach(function (k) { s = s.split("{" + k + "}").join(String(args[k])); });
    }
    return s;
  }

  function $(id) {
    return document.getElementById(id);
  }

  function applyTexts() {
    document.documentElement.lang = lang;
    document.title = t("title");
    var nodes = document.querySelectorAll("[data-i18n]");
    for (var i = 0; i < nodes.length; i++) nodes[i].textContent = t(nodes[i].getAttribute("data-i18n"));
    var labelled = document.querySelectorAll("[data-i18n-label]");
    for (var j = 0; j < labelled.length; j++) {
      labelled[j].setAttribute("aria-label", t(labelled[j].getAttribute("data-i18n-label")));
    }
    if (lastAnswer) showAnswer(lastAnswer);
    showPending();
    if (offlineBanner) showBanner(t("offline_banner"));
  }

  // ---------------------------------------------------------------- state and screens

  var state = { signedIn: false, displayName: "", place: "" };
  var lastAnswer = null;
  var offlineBanner = false;

  function show(screen) {
    ["signin", "scan", "answer"].forEach(function (s) { $(s).hidden = s !== screen; });
    $("signout").hidden = screen === "signin";
    if (screen === "scan") startCamera();
    else stopCamera();
  }

  function showBanner(text) {
    $("banner").textContent = text || "";
    $("banner").hidden = !text;
  }

  function setOffline(flag) {
    offlineBanner = flag;
    showBanner(flag ? t("offline_banner") : "");
  }

  function showError(id, text) {
    $(id).textContent = text || "";
    $(id).hidden = !text;
  }

  function madridTime(iso) {
    var d = new Date(iso);
    var time = new Intl.DateTimeFormat("es-ES", {
      timeZone: TZ, hour: "2-digit", minute: "2-digit", hour12: false
    }).format(d);
    var day = new Intl.DateTimeFormat(lang === "es" ? "es-ES" : "en-GB", {
      timeZone: TZ, day: "numeric", month: "numeric"
    }).format(d);
    return { time: time, day: day, today: madridDays(d) === madridDays(new Date()) };
  }

  function dateText(iso) {
    if (!iso) return "";
    var p = iso.slice(0, 10).split("-");
    return p.length === 3 ? p[2] + "/" + p[1] + "/" + p[0] : iso;
  }

  function row(id, value) {
    $("row-" + id).hidden = !value;
    $("f-" + id).textContent = value || "";
  }

  /* a: {answer, card_number, card_type, valid_from, valid_until, holder_name,
   *     void_reason, offline, list_issued_at} */
  function showAnswer(a) {
    lastAnswer = a;
    var box = $("verdict-box");
    box.className = "verdict " + (GOOD[a.answer] ? "good" : BAD[a.answer] ? "bad" : "warn");
    box.setAttribute("data-answer", a.answer);
    var word = t("answer_" + (a.answer === "NO_LIST" ? "OFFLINE_ADM1" : a.answer));
    $("verdict").textContent = word;
    // a word longer than the phone's width at the large size is set a little smaller
    $("verdict").className = "verdict-word" + (/[^ ]{10,}/.test(word) ? " long" : "");
    var notes = { OFFLINE_ADM1: "offline_adm1", NO_LIST: "no_list", FORGED: "note_FORGED", NOT_A_CARD: "note_NOT_A_CARD" };
    var note = notes[a.answer] ? t(notes[a.answer]) : "";
    $("verdict-note").textContent = note;
    $("verdict-note").hidden = !note;
    row("number", a.card_number ? String(a.card_number) : "");
    row("type", a.card_type || "");
    row("validity", a.valid_from && a.valid_until
      ? t("validity_range", { from: dateText(a.valid_from), until: dateText(a.valid_until) }) : "");
    row("holder", a.offline ? "" : a.holder_name || "");
    row("reason", a.offline || a.answer !== "VOID" ? "" : a.void_reason || "");
    var line = $("source-line");
    if (a.offline && a.list_issued_at) {
      var when = madridTime(a.list_issued_at);
      line.textContent = when.today
        ? t("offline_line", { time: when.time })
        : t("offline_line_day", { day: when.day, time: when.time });
      line.className = "source offline";
    } else if (a.offline) {
      line.textContent = "";
      line.className = "source offline";
    } else {
      line.textContent = t("online_line");
      line.className = "source";
    }
  }

  function showPending() {
    var n = load(PENDING, []).length;
    $("pending").textContent = n ? t("pending", { n: n }) : "";
    $("pending").hidden = !n;
  }

  // ---------------------------------------------------------------- network

  function api(method, path, body) {
    var init = {
      method: method,
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" }
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    // A TypeError from fetch is a network failure (offline); an HTTP error resolves.
    return fetch(path, init).then(function (res) {
      return res.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        if (res.ok) {
          setOffline(false);
          // (after a sign-in, once the account's digest is kept: see signIn)
          if (path !== "/api/offline-checks" && path !== "/api/session") setTimeout(flushPending, 0);
        }
        return { ok: res.ok, status: res.status, json: json, headers: res.headers };
      });
    });
  }

  function httpError(res) {
    var code = (res.json && res.json.error) || String(res.status);
    if (res.status === 401 && code !== "BAD_CREDENTIALS") return t("err_session");
    if (code === "ACCOUNT_LOCKED") {
      var until = res.json && res.json.locked_until;
      return t("err_ACCOUNT_LOCKED", { time: until ? madridTime(until).time : "?" });
    }
    if (res.status === 429) return t("err_RATE_LIMITED", { s: res.headers.get("Retry-After") || "60" });
    if (code === "BAD_CREDENTIALS" || code === "ROLE_REQUIRED") return t("err_" + code);
    var msg = res.json && (lang === "es" ? res.json.message_es : res.json.message_en);
    return msg || t("err_generic", { code: res.status });
  }

  /* Keys and the signed void list, fetched after sign-in and on every online start; the
   * list is stored only once its signature verifies under one of those keys. */
  function refreshOfflineData() {
    return api("GET", "/api/keys").then(function (k) {
      if (!k.ok || !k.json || !Array.isArray(k.json.keys)) return false;
      var keys = { casino_id: k.json.casino_id, keys: k.json.keys.map(function (x) {
        return { key_id: x.key_id, public_key: x.public_key, created_at: x.created_at, current: !!x.current };
      }) };
      save(KEYS, keys);
      return api("GET", "/api/voids").then(function (v) {
        if (!v.ok || !v.json) return false;
        var signed = { body: v.json.body, key_id: v.json.key_id, signature: v.json.signature };
        return verifyVoids(keys, signed).then(function (body) {
          if (!body) return false;
          save(VOIDS, { signed: signed, fetched_at: new Date().toISOString() });
          return true;
        });
      });
    });
  }

  var flushing = null;

  /* Offline checks go to the audit trail when the network is back, under the account
   * that made them (each carries a digest of its username, never the name): a batch
   * leaves the queue only once the service has answered that it recorded it. A batch
   * the service refuses as malformed is sent again one check at a time, and only a
   * single check it refuses is dropped, so one bad entry never blocks the others. */
  function flushPending() {
    if (flushing) return flushing;
    var size = BATCH;
    flushing = (function next() {
      var me = load(WHO, "");
      var mine = load(PENDING, []).filter(function (c) { return c.by === me; });
      if (!me || !mine.length) return Promise.resolve(true);
      var batch = mine.slice(0, size);
      var sent = batch.map(function (c) {
        return { code: c.code, checked_at: c.checked_at, answer: c.answer, place: c.place };
      });
      return api("POST", "/api/offline-checks", { checks: sent }).then(function (res) {
        var refused = res.status === 400 || res.status === 413;
        if (!res.ok && !(refused && size === 1)) {
          if (!refused) return false;
          size = 1;
          return next();
        }
        var done = {};
        batch.forEach(function (c) { done[c.id] = true; });
        save(PENDING, load(PENDING, []).filter(function (c) { return !done[c.id]; }));
        showPending();
        return next();
      });
    })().catch(function () { return false; }).then(function (done) {
      flushing = null;
      return done;
    });
    return flushing;
  }

  function keepOfflineCheck(code, answer) {
    var queue = load(PENDING, []);
    queue.push({
      id: Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10),
      by: load(WHO, ""),
      code: code,
      checked_at: new Date().toISOString(),
      answer: answer,
      place: state.place
    });
    if (queue.length > MAX_PENDING) queue = queue.slice(queue.length - MAX_PENDING);
    save(PENDING, queue);
  }

  /* Who made a check, as kept on the phone: the first 16 hex of SHA-256 of the username. */
  function whoDigest(username) {
    return crypto.subtle.digest("SHA-256", utf8(username)).then(function (d) {
      return hex(new Uint8Array(d)).slice(0, 16);
    });
  }

  // ---------------------------------------------------------------- checks

  var checking = false;

  function check(text) {
    var code = (text || "").trim();
    if (!code) {
      showError("code-error", t("err_empty_code"));
      return Promise.resolve();
    }
    if (checking) return Promise.resolve();
    checking = true;
    showError("code-error", "");
    $("check-button").disabled = true;
    $("check-button").textContent = t("checking");
    var path = "/api/cards/" + encodeURIComponent(code.slice(0, MAX_CODE)) +
      "?place=" + encodeURIComponent(state.place);
    return api("GET", path)
      .then(function (res) {
        if (res.ok && res.json) {
          var c = res.json.check || {};
          showAnswer({
            answer: res.json.answer,
            card_number: c.card_number,
            card_type: c.card_type,
            valid_from: c.valid_from,
            valid_until: c.valid_until,
            void_reason: c.void_reason,
            holder_name: res.json.holder_name,
            offline: false
          });
          show("answer");
          return;
        }
        if (res.status === 401) {
          state.signedIn = false;
          showError("signin-error", t("err_session"));
          show("signin");
          return;
        }
        showError("code-error", httpError(res));
      }, function () {
        setOffline(true);
        return verifyOffline(code, load(KEYS, null), (load(VOIDS, null) || {}).signed, new Date())
          .then(function (a) {
            a.offline = true;
            if (a.answer !== "NO_LIST" && a.answer !== "OFFLINE_ADM1") keepOfflineCheck(code, a.answer);
            showAnswer(a);
            showPending();
            show("answer");
          });
      })
      .then(function () {
        checking = false;
        $("check-button").disabled = false;
        $("check-button").textContent = t("check_button");
        if (!$("answer").hidden) $("verdict").focus();
      });
  }

  // ---------------------------------------------------------------- camera

  var camera = { stream: null, timer: 0, detector: null, busy: false };

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
        window.floor.decoder = "BarcodeDetector";
        return function (video) {
          return det.detect(video).then(function (found) { return found.length ? found[0].rawValue : null; });
        };
      }).catch(jsQRDecoder);
    }
    return jsQRDecoder();
  }

  function jsQRDecoder() {
    return loadJsQR().then(function (jsQR) {
      var canvas = $("grab");
      var ctx = canvas.getContext("2d", { willReadFrequently: true });
      window.floor.decoder = "jsQR";
      return function (video) {
        var w = video.videoWidth;
        var h = video.videoHeight;
        if (!w || !h) return Promise.resolve(null);
        var scale = Math.min(1, 800 / Math.max(w, h));
        canvas.width = Math.round(w * scale);
        canvas.height = Math.round(h * scale);
        ctx.drawImage(video, 0, 0, canvas.width, canvas.height);
        var img = ctx.getImageData(0, 0, canvas.width, canvas.height);
        var found = jsQR(img.data, img.width, img.height, { inversionAttempts: "dontInvert" });
        return Promise.resolve(found ? found.data : null);
      };
    });
  }

  function startCamera() {
    if (camera.stream || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      if (!camera.stream) $("camera-note").textContent = t("camera_off");
      return;
    }
    var video = $("video");
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 } }, audio: false })
      .then(function (stream) {
        if ($("scan").hidden) {
          stream.getTracks().forEach(function (tr) { tr.stop(); });
          return;
        }
        camera.stream = stream;
        video.srcObject = stream;
        $("camera-note").textContent = t("camera_hint");
        return video.play().then(function () {
          return makeDecoder();
        }).then(function (decode) {
          if (!camera.stream) return;
          camera.timer = setInterval(function () {
            if (camera.busy || !camera.stream) return;
            camera.busy = true;
            decode(video).then(function (text) {
              camera.busy = false;
              if (text && camera.stream) {
                stopCamera(); // stop once read
                $("code").value = text;
                check(text);
              }
            }, function () { camera.busy = false; });
          }, SCAN_EVERY_MS);
        });
      })
      .catch(function () {
        $("camera-note").textContent = t("camera_denied");
      });
  }

  function stopCamera() {
    if (camera.timer) clearInterval(camera.timer);
    camera.timer = 0;
    if (camera.stream) camera.stream.getTracks().forEach(function (tr) { tr.stop(); });
    camera.stream = null;
    camera.busy = false;
    $("video").srcObject = null;
  }

  // ---------------------------------------------------------------- sign-in

  function signIn(event) {
    event.preventDefault();
    var username = $("username").value.trim();
    var pin = $("pin").value.trim();
    var place = $("place").value.trim().slice(0, 40);
    if (!username || !pin || !place) {
      showError("signin-error", t("err_fields"));
      return;
    }
    showError("signin-error", "");
    $("signin-button").disabled = true;
    $("signin-button").textContent = t("signing_in");
    api("POST", "/api/session", { username: username, pin: pin, place: place })
      .then(function (res) {
        if (!res.ok) {
          showError("signin-error", httpError(res));
          return;
        }
        $("pin").value = "";
        save(PLACE, place);
        return whoDigest(username).then(function (who) {
          save(WHO, who);
          flushPending();
          return res;
        });
      })
      .then(function (res) {
        if (!res || !res.ok) return;
        state.signedIn = true;
        state.place = place;
        state.displayName = (res.json && res.json.display_name) || "";
        return refreshOfflineData().catch(function () { return false; }).then(function () {
          show("scan");
        });
      }, function () {
        showError("signin-error", t("err_network"));
      })
      .then(function () {
        $("signin-button").disabled = false;
        $("signin-button").textContent = t("signin_button");
      });
  }

  function signOut() {
    stopCamera();
    api("DELETE", "/api/session").catch(function () {});
    try { localStorage.removeItem(WHO); } catch (e) { /* nothing kept */ }
    state.signedIn = false;
    lastAnswer = null;
    show("signin");
    $("username").focus();
  }

  /* A reload with a live session goes straight to the scan screen; offline (the service
   * worker served the page), the saved keys and list still answer. */
  function resume() {
    return refreshOfflineData().then(function (ok) {
      if (ok) {
        state.signedIn = true;
        show("scan");
      }
    }, function () {
      if (load(KEYS, null) && load(VOIDS, null) && state.place) {
        setOffline(true);
        show("scan");
      }
    });
  }

  // ---------------------------------------------------------------- start

  function chooseLanguage() {
    var saved = load(LANG, null);
    if (saved === "es" || saved === "en") return saved;
    return /^en\b/i.test(navigator.language || "") ? "en" : "es";
  }

  function start() {
    lang = chooseLanguage();
    state.place = load(PLACE, "") || "";
    $("place").value = state.place;
    $("signin-form").addEventListener("submit", signIn);
    $("code-form").addEventListener("submit", function (e) {
      e.preventDefault();
      check($("code").value);
    });
    $("again").addEventListener("click", function () {
      lastAnswer = null;
      $("code").value = "";
      show("scan");
      $("code").focus();
    });
    $("signout").addEventListener("click", signOut);
    $("lang").addEventListener("click", function () {
      lang = lang === "es" ? "en" : "es";
      save(LANG, lang);
      applyTexts();
    });
    window.addEventListener("online", function () { flushPending(); });
    if ("serviceWorker" in navigator && window.isSecureContext) {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
    }
    showPending();
    var ready = fetch("/static/i18n.json")
      .then(function (r) { return r.json(); })
      .then(function (j) { texts = j; applyTexts(); }, function () {})
      .then(function () {
        // the sign-in form has its handlers and its texts: what the page-load bench times
        if (window.performance && performance.mark) performance.mark("floor-interactive");
      });
    $((state.place ? "pin" : "username")).focus();
    window.floor.ready = ready.then(resume).then(function () {
      document.body.setAttribute("data-ready", "1");
    });
  }

  window.floor = {
    decodeAdm2: decodeAdm2,
    verifyOffline: verifyOffline,
    verifyVoids: verifyVoids,
    madridDays: madridDays,
    flushPending: flushPending,
    check: check,
    decoder: ""
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

/* The floor phone page: staff and inspectors check entry cards where players are
 * (Reglamento de Casinos de Juego, art. 22.4). Served with a CSP that forbids inline
 * script and style, so every handler is attached here.
 *
 * Online, a check asks the desk's floor service (GET /api/cards/{code}). When the
 * network fails (not on an HTTP error), an ADM2 code is checked on the phone (adm2.js)
 * against the public keys and the signed void list fetched at sign-in; the check is
 * kept and sent to the service's audit trail when the network is back.
 *
 * localStorage holds only: the place, the language, the public keys, the signed void
 * list (verified before it is stored and again before use), the pending offline checks
 * (code, time, answer, place, a digest of the account) and that digest. Never a name.
 */
(function () {
  "use strict";

  var A = window.floorAdm2;
  var camera = window.floorCamera;
  var KEYS = "floor.keys";
  var VOIDS = "floor.voids";
  var PENDING = "floor.pending";
  var PLACE = "floor.place";
  var WHO = "floor.who";
  var LANG = "floor.lang";
  var MAX_PENDING = 1000;
  var BATCH = 200; // the service takes at most 200 offline checks per request
  var TZ = A.TZ;

  var GOOD = { VALID: 1 };
  var BAD = { VOID: 1, FORGED: 1, NOT_THIS_CASINO: 1, NOT_A_CARD: 1 };

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
    if (screen === "scan") camera.start($("video"), onScanned, cameraNote);
    else camera.stop($("video"));
  }

  function onScanned(text) {
    $("code").value = text;
    check(text);
  }

  function cameraNote(how) {
    var key = { on: "camera_hint", off: "camera_off", denied: "camera_denied" }[how];
    $("camera-note").setAttribute("data-i18n", key); // kept when the language changes
    $("camera-note").textContent = t(key);
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
    return { time: time, day: day, today: A.madridDays(d) === A.madridDays(new Date()) };
  }

  function dateText(iso) {
    if (!iso) return "";
    var p = iso.slice(0, 10).split("-");
    return p.length === 3 ? p[2] + "/" + p[1] + "/" + p[0] : iso;
  }

  /* The card type's label in the page's language (R10), as /api/keys lists them; the
   * code itself for a type the list does not know. */
  function typeLabel(code) {
    if (!code) return "";
    var types = (load(KEYS, null) || {}).card_types || {};
    var labels = types[code];
    return (labels && (labels[lang] || labels.es)) || code;
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
    row("type", typeLabel(a.card_type));
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

  /* The card types' labels (code -> {es, en}), text only, as many as a casino has. */
  function cardTypes(given) {
    var types = {};
    if (!given || typeof given !== "object") return types;
    Object.keys(given).slice(0, 100).forEach(function (code) {
      var l = given[code] || {};
      types[code] = { es: String(l.es || "").slice(0, 80), en: String(l.en || "").slice(0, 80) };
    });
    return types;
  }

  /* Keys and the signed void list, fetched after sign-in and on every online start; the
   * list is stored only once its signature verifies under one of those keys. */
  function refreshOfflineData() {
    return api("GET", "/api/keys").then(function (k) {
      if (!k.ok || !k.json || !Array.isArray(k.json.keys)) return false;
      var keys = { casino_id: k.json.casino_id, keys: k.json.keys.map(function (x) {
        return { key_id: x.key_id, public_key: x.public_key, created_at: x.created_at, current: !!x.current };
      }), card_types: cardTypes(k.json.card_types) };
      save(KEYS, keys);
      return api("GET", "/api/voids").then(function (v) {
        if (!v.ok || !v.json) return false;
        var signed = { body: v.json.body, key_id: v.json.key_id, signature: v.json.signature };
        return A.verifyVoids(keys, signed).then(function (body) {
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
    return crypto.subtle.digest("SHA-256", A.utf8(username)).then(function (d) {
      return A.hex(new Uint8Array(d)).slice(0, 16);
    });
  }

  // ---------------------------------------------------------------- checks

  var checking = false;

  /* The service's answer, or (network down) the phone's own. */
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
    var path = "/api/cards/" + encodeURIComponent(code.slice(0, A.MAX_CODE)) +
      "?place=" + encodeURIComponent(state.place);
    return api("GET", path)
      .then(onlineAnswer, function () { return offlineAnswer(code); })
      .catch(function () { showError("code-error", t("err_generic", { code: "-" })); })
      .then(function () {
        checking = false;
        $("check-button").disabled = false;
        $("check-button").textContent = t("check_button");
        if (!$("answer").hidden) $("verdict").focus();
      });
  }

  function onlineAnswer(res) {
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
    } else if (res.status === 401) {
      state.signedIn = false;
      showError("signin-error", t("err_session"));
      show("signin");
    } else {
      showError("code-error", httpError(res));
    }
  }

  function offlineAnswer(code) {
    setOffline(true);
    var voids = (load(VOIDS, null) || {}).signed;
    return A.verifyOffline(code, load(KEYS, null), voids, new Date()).then(function (a) {
      a.offline = true;
      if (a.answer !== "NO_LIST" && a.answer !== "OFFLINE_ADM1") keepOfflineCheck(code, a.answer);
      showAnswer(a);
      showPending();
      show("answer");
    });
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
    camera.stop($("video"));
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

  // what the tests and the benchmark reach (tests/floor/)
  window.floor = {
    decodeAdm2: A.decodeAdm2,
    verifyOffline: A.verifyOffline,
    verifyVoids: A.verifyVoids,
    madridDays: A.madridDays,
    flushPending: flushPending,
    check: check
  };
  Object.defineProperty(window.floor, "decoder", { get: camera.decoder });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

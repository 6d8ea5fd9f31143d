/* The ADM2 card code read and verified on the phone (contract section 1), for the floor
 * page's offline checks (Reglamento de Casinos de Juego, art. 22.4): Crockford base-32,
 * the payload's exact lengths, the Ed25519 signature through WebCrypto over
 * "ADM2\0" + payload, the key id, the casino, the validity against today in
 * Europe/Madrid and the signed list of voided cards. Pure functions, no page state:
 * window.floorAdm2.
 */
(function () {
  "use strict";

  var CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  var MAX_CODE = 256; // longer text is refused before any parsing
  var EPOCH_2000 = Date.UTC(2000, 0, 1);
  var DAY_MS = 86400000;
  var TZ = "Europe/Madrid";

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

  window.floorAdm2 = {
    MAX_CODE: MAX_CODE,
    TZ: TZ,
    utf8: utf8,
    hex: hex,
    decodeAdm2: decodeAdm2,
    verifyOffline: verifyOffline,
    verifyVoids: verifyVoids,
    madridDays: madridDays
  };
})();

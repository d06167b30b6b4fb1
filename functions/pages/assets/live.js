// What every live page shares: calls to the API, and following pushes over the
// WebSocket with the HTTP reads as the fallback while the socket is lost.
"use strict";
(function (K) {
  const live = () => document.getElementById("live");

  // The site's root as an absolute URL, from the page's own relative root.
  function root() {
    const script = document.querySelector("script[src$='assets/live.js']");
    return new URL(script.getAttribute("src").replace(/assets\/live\.js$/, ""), location.href);
  }

  // A call to the API: {status, body} (body null when it is not JSON). A POST carries
  // `key` as its Idempotency-Key (a fresh one without), so a resent action is applied
  // once. A request that reaches no server (offline, a signal drop) answers status 0.
  async function api(method, path, body, token, key) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    if (method === "POST") headers["Idempotency-Key"] = key || randomKey();
    let answer;
    try {
      answer = await fetch(new URL(path.replace(/^\//, ""), root()), {
        method,
        headers,
        cache: "no-store",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      reached(false);
      return { status: 0, body: null };
    }
    reached(true);
    // The server's clock, from the answer's Date header: deadlines are the server's
    // (a phone's clock can be minutes off), to a second, which a countdown needs.
    const date = Date.parse(answer.headers.get("Date") || "");
    if (!Number.isNaN(date)) K.clockOffset = date + 500 - Date.now();
    let parsed = null;
    try {
      parsed = await answer.json();
    } catch (error) {
      parsed = null;
    }
    return { status: answer.status, body: parsed };
  }

  // Whether the last request reached the service: pages show "offline" while it did not.
  let reachable = true;
  function reached(ok) {
    if (ok === reachable) return;
    reachable = ok;
    document.dispatchEvent(new CustomEvent("knobelcup:reach", { detail: ok }));
  }

  // Now on the server's clock, in milliseconds.
  function serverNow() {
    return Date.now() + (K.clockOffset || 0);
  }

  function randomKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // The WebSocket's URL: as the page names it, or /ws beside the page's site.
  function socketUrl(query) {
    const named = live() && live().dataset.socket;
    const base = named ? new URL(named) : new URL("ws", root());
    if (!named) base.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    for (const [key, value] of Object.entries(query)) if (value) base.searchParams.set(key, value);
    return base.toString();
  }

  // Seconds a socket is kept before the page connects anew: API Gateway closes every
  // WebSocket at 2 hours, so at 1 h 45–50 min (jittered: the pages of one pub opened
  // together must not renew together); `?socket_renew=<seconds>` shortens it, for tests.
  function renewSeconds() {
    const asked = Number(new URLSearchParams(location.search).get("socket_renew"));
    return asked > 0 ? asked : 6600 - Math.random() * 300;
  }

  // Follows pushes: onMessage(message) for each; while the socket is lost, onPoll()
  // every pollSeconds and a reconnect with growing pauses; onOpen() after each connect
  // (to catch up on what a gap may have missed). Before the 2-hour cut it opens a new
  // socket, closes the old one once the new is open, and calls onOpen() again: a
  // message the old one carried last is read by that catch-up. Returns {close, connected}.
  function follow({ query, onMessage, onPoll, onOpen, pollSeconds = 2 }) {
    let socket = null;
    let closed = false;
    let pause = 1000;
    let polling = null;
    let pinging = null;
    let renewing = null;

    function startPolling() {
      if (polling || !onPoll) return;
      polling = setInterval(onPoll, pollSeconds * 1000);
      onPoll();
    }

    function stopPolling() {
      clearInterval(polling);
      polling = null;
    }

    // `query` is the connect's query, or a function that makes a fresh one for each
    // connect (a promise of it: the play page's one-use ticket); null: not now.
    // `old`: the open socket this one replaces (closed once this one is open).
    async function connect(old) {
      if (closed) return;
      let opened;
      try {
        const asked = typeof query === "function" ? await query() : query;
        if (!asked) throw new Error("no query to connect with");
        if (closed) return;
        opened = new WebSocket(socketUrl(asked));
      } catch (error) {
        if (old) {
          renewing = setTimeout(() => connect(socket), 30000); // keep the old one meanwhile
          return;
        }
        startPolling();
        setTimeout(connect, (pause = Math.min(pause * 2, 30000)));
        return;
      }
      if (!old) socket = opened;
      opened.onopen = () => {
        if (old) {
          if (old !== socket) { opened.close(); return; } // the old one was lost meanwhile
          socket = opened;
          old.onclose = null;
          old.close();
        }
        pause = 1000;
        stopPolling();
        clearInterval(pinging);
        pinging = setInterval(() => socket && socket.send('{"action":"ping"}'), 240000);
        clearTimeout(renewing);
        renewing = setTimeout(() => connect(socket), renewSeconds() * 1000);
        if (onOpen) onOpen();
      };
      opened.onmessage = (frame) => {
        let message;
        try {
          message = JSON.parse(frame.data);
        } catch (error) {
          return;
        }
        if (message && message.type !== "pong") onMessage(message);
      };
      opened.onclose = () => {
        if (opened !== socket) return; // a renewal that did not take over
        clearInterval(pinging);
        clearTimeout(renewing);
        socket = null;
        if (closed) return;
        startPolling();
        setTimeout(connect, pause);
        pause = Math.min(pause * 2, 30000);
      };
    }

    connect();
    return {
      close() {
        closed = true;
        stopPolling();
        clearTimeout(renewing);
        if (socket) socket.close();
      },
      connected: () => socket !== null && socket.readyState === WebSocket.OPEN,
    };
  }

  // Reads JSON a page embedded for its script.
  function embedded(id) {
    const element = document.getElementById(id);
    return element ? JSON.parse(element.textContent) : null;
  }

  // An element with a class and text (never parsed as HTML).
  function el(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined && text !== null) element.textContent = String(text);
    return element;
  }

  // The page's words (core/words.py, embedded by the server as #words, in the page's
  // language): `say("play.wait_for", { name })` fills the {placeholders}.
  let words = null;
  function say(key, values) {
    if (words === null) words = embedded("words") || {};
    const text = Object.prototype.hasOwnProperty.call(words, key) ? words[key] : key;
    return text.replace(/\{(\w+)\}/g, (all, name) =>
      values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : all);
  }

  // Whether the page's words have `key` (a fact's name, say, that may have none).
  function knows(key) {
    if (words === null) words = embedded("words") || {};
    return Object.prototype.hasOwnProperty.call(words, key);
  }

  const lang = () => document.documentElement.lang || "en";

  // "1 table", "1,234 tables" ("1.234 Tische"): count.<noun>.one or .other.
  function count(number, noun) {
    return say("count." + noun + (number === 1 ? ".one" : ".other"), { n: number.toLocaleString(lang()) });
  }

  // A place as a sentence says it: "3rd" in English, "3" in German ("Platz 3").
  function place(number) {
    return lang() === "de" || !K.ordinal ? String(number) : K.ordinal(number);
  }

  Object.assign(K, { api, follow, embedded, el, randomKey, root, serverNow, socketUrl, say, knows, count, place });
})((window.Knobelcup = window.Knobelcup || {}));

// The play page: register (or resume from a link's #token=…), then play every table
// the tournament seats you at. The token stays in this browser (localStorage). Pushes
// over the WebSocket tell when you are seated, when the table moves on and when it is
// your turn; while the socket is lost, the event feed and /me are read instead.
"use strict";
(function (K) {
  const data = K.embedded("play-data");
  if (!data) return;
  const tournament = ofAddress();
  const base = "tournaments/" + encodeURIComponent(tournament);
  const KEY = "knobelcup.seat." + tournament;
  const ACTIONS = ["throw", "doubt", "blind_reroll", "stop", "concede"];
  const label = (kind) => (ACTIONS.includes(kind) ? K.say("play.action." + kind) : kind);
  const $ = (id) => document.getElementById(id);
  let seat = load();
  let table = null;
  let story = null;
  let view = null;
  let over = false;
  let busy = false;
  let following = null;
  let deadline = null; // when the turn in play times out (epoch s, the server's clock)
  let wasMine = false;
  let opened = null; // the tournament read at the start, until the first tellWhere uses it
  const names = {};
  let TITLE = document.title;
  const LANGUAGE_COOKIE = "knobelcup_lang";
  const SOUND = "knobelcup.sound";

  function load() {
    try {
      return JSON.parse(localStorage.getItem(KEY));
    } catch (error) {
      return null;
    }
  }

  function save(value) {
    seat = value;
    if (value) localStorage.setItem(KEY, JSON.stringify(value));
    else localStorage.removeItem(KEY);
  }

  function notice(text, kind) {
    const box = $("notice");
    box.hidden = !text;
    box.className = "notice" + (kind ? " " + kind : "");
    box.textContent = text || "";
  }

  // A token handed over in the link's fragment: kept, and taken out of the address bar.
  function takeLinkToken() {
    const token = new URLSearchParams(location.hash.slice(1)).get("token");
    if (!token) return null;
    history.replaceState(null, "", location.pathname + location.search);
    return token;
  }

  // While no request reaches the service: say so, keep any tap, and read everything
  // again once it answers (what was missed meanwhile).
  document.addEventListener("knobelcup:reach", (reach) => {
    $("link-state").hidden = reach.detail;
    if (reach.detail && seat && seat.player) refresh();
  });
  window.addEventListener("offline", () => ($("link-state").hidden = false));
  window.addEventListener("online", () => seat && seat.player && refresh());

  // The turn's remaining time, counted down from the server's deadline.
  function tick() {
    const box = $("countdown");
    const left = deadline && view && !over ? Math.max(0, Math.ceil(deadline - K.serverNow() / 1000)) : null;
    box.hidden = left === null;
    if (left === null) return;
    const mine = view.to_act === seat.player;
    box.textContent = (mine ? K.say("play.your_turn_colon") : K.say("play.who_colon", { name: K.nameOf(names, view.to_act) })) +
      K.count(left, "seconds_left");
    box.classList.toggle("short", mine && left <= 10);
  }
  setInterval(tick, 250);

  function learnDeadline(value) {
    if (value !== undefined) deadline = value;
    tick();
  }

  // A player who looked away hears of their turn: the tab's title, a vibration where
  // the browser allows it, and a short tone if they switched it on.
  function alertTurn(mine) {
    document.title = mine ? K.say("play.your_turn_title", { title: TITLE }) : TITLE;
    if (!mine || wasMine) return (wasMine = mine);
    wasMine = true;
    if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
    if (localStorage.getItem(SOUND) === "on") beep();
  }

  function beep() {
    try {
      const audio = new (window.AudioContext || window.webkitAudioContext)();
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.frequency.value = 880;
      volume.gain.setValueAtTime(0.2, audio.currentTime);
      volume.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
      tone.connect(volume).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.4);
    } catch (error) {
      // no sound on this browser: the title and the vibration remain
    }
  }

  function showSound() {
    const on = localStorage.getItem(SOUND) === "on";
    const button = $("sound");
    button.textContent = K.say(on ? "play.sound_on" : "play.sound_off");
    button.setAttribute("aria-pressed", String(on));
  }

  $("sound").onclick = () => {
    localStorage.setItem(SOUND, localStorage.getItem(SOUND) === "on" ? "off" : "on");
    showSound();
    if (localStorage.getItem(SOUND) === "on") beep(); // a tap lets the page make sound
  };
  showSound();

  // The tournament the page is for: the one shell serves /tournaments/{id}/play for all.
  function ofAddress() {
    const parts = location.pathname.split("/");
    return decodeURIComponent(parts[parts.length - 2] || "");
  }

  // The tournament as its public view tells it, read again until the service answers.
  async function readTournament() {
    for (let pause = 1000; ; pause = Math.min(pause * 2, 15000)) {
      const cup = await K.api("GET", base);
      if (cup.status === 200 || cup.status === 404) return cup;
      await new Promise((resolve) => setTimeout(resolve, pause * (0.75 + Math.random() / 2)));
    }
  }

  function cookie(name) {
    const found = document.cookie.split(";").map((c) => c.trim().split("=")).find(([k]) => k === name);
    return found ? decodeURIComponent(found[1] || "") : "";
  }

  // The page's language (the site chose it from ?lang=, the cookie, Accept-Language):
  // a language asked for with ?lang= is remembered; where the person chose none, the
  // organizer's choice for the tournament wins over the browser's, so the page loads
  // again in it. True while it does.
  function speakTheRightLanguage(cup) {
    const query = new URLSearchParams(location.search);
    const asked = query.get("lang");
    if ((asked === "de" || asked === "en") && query.get("by") !== "organizer") {
      const secure = location.protocol === "https:" ? "; secure" : "";
      document.cookie = LANGUAGE_COOKIE + "=" + asked + "; path=/; max-age=31536000; samesite=lax" + secure;
      return false;
    }
    const chosen = cup.language;
    if (asked || cookie(LANGUAGE_COOKIE) || !chosen || chosen === document.documentElement.lang) return false;
    query.set("lang", chosen);
    query.set("by", "organizer");
    location.replace(location.pathname + "?" + query.toString() + location.hash);
    return true;
  }

  async function start() {
    const cup = await readTournament();
    if (cup.status === 404) return notice(K.say("play.no_tournament", { id: tournament }), "bad");
    if (speakTheRightLanguage(cup.body)) return;
    data.status = cup.body.status;
    data.join_code_required = Boolean(cup.body.join_code_required);
    showTournament(cup.body);
    opened = cup.body;
    const linked = takeLinkToken();
    if (linked) save({ token: linked, player: null, name: null });
    if (!seat) return showJoin();
    await enter();
  }

  function showJoin() {
    $("join").hidden = false;
    if (!["created", "open"].includes(data.status)) {
      notice(K.say("play.closed"), "bad");
    }
    // A tournament with a join code: asked for beside the name, filled in from the
    // link (the projector's QR code carries it as ?code=).
    const code = $("join-code");
    if (data.join_code_required && code) {
      code.hidden = false;
      code.required = true;
      code.value = new URLSearchParams(location.search).get("code") || "";
    }
    $("join-form").onsubmit = async (submitted) => {
      submitted.preventDefault();
      const name = $("name").value.trim();
      if (!name) return;
      const registration = { name };
      if (data.join_code_required && code) registration.join_code = code.value.trim();
      $("join-button").disabled = true;
      const answer = await K.api("POST", base + "/players", registration);
      $("join-button").disabled = false;
      if (answer.status !== 201) {
        notice((answer.body && answer.body.message) ||
          (answer.status ? K.say("play.join_failed", { status: answer.status }) : K.say("play.no_connection")), "bad");
        if (answer.body && answer.body.field === "join_code" && code) code.focus();
        return;
      }
      save({ token: answer.body.player_token, player: answer.body.player_id, name });
      await enter();
    };
  }

  async function enter() {
    $("join").hidden = true;
    notice("");
    const ok = await whereabouts();
    if (!ok) return;
    $("you").hidden = false;
    const link = $("resume-link");
    link.textContent = location.origin + location.pathname + "#token=" + seat.token;
    link.href = "#token=" + encodeURIComponent(seat.token);
    following = K.follow({
      query: socketQuery,
      onMessage,
      onOpen: () => refresh(),
      // the socket lost: a player at a table reads it every few seconds; one waiting for
      // the start keeps to the slow waiting reads (`waitAgain`), however many they are
      onPoll: () => (table ? refresh() : undefined),
    });
  }

  // A one-use ticket for each connect, asked for with the token in a header: the
  // token never stands in the WebSocket's URL, and so in no access log.
  async function socketQuery() {
    const answer = await K.api("POST", base + "/me/socket-ticket", undefined, seat.token);
    return answer.status === 201 ? { tournament, ticket: answer.body.ticket } : null;
  }

  async function refresh() {
    await whereabouts();
    if (table) await catchUp();
  }

  async function whereabouts() {
    const answer = await K.api("GET", base + "/me", undefined, seat.token);
    if (answer.status === 401 || answer.status === 403) {
      save(null);
      notice(K.say("play.foreign_seat"), "bad");
      showJoin();
      return false;
    }
    if (answer.status !== 200) return true;
    const where = answer.body;
    if (!seat.player || !seat.name) save({ ...seat, player: where.player, name: where.name });
    names[where.player] = where.name;
    // a queued table is not opened: nothing happens at it until it starts (its `seated`)
    if (where.table && where.table !== table && !where.queue) await openTable(where.table);
    await tellWhere(where);
    return true;
  }

  async function tellWhere(where) {
    let text = K.say("play.you_play_as", { name: where.name });
    // the tournament as the page read it when it opened, else as it stands now
    const cup = opened ? { status: 200, body: opened } : await K.api("GET", base);
    opened = null;
    const known = cup.status === 200;
    if (known) showTournament(cup.body);
    if (where.tournament_status === "finished") {
      const champion = known ? cup.body.champion_name || cup.body.champion : null;
      text = known
        ? K.say("play.placed", { place: K.place(where.place), players: cup.body.player_count })
        : K.say("play.placed_alone", { place: K.place(where.place) });
      if (champion) text += " " + K.say("play.champion_is", { name: champion });
      const won = known && cup.body.champion === where.player;
      notice(won ? K.say("play.champion", { text }) : text, "good");
      if (following) following.close();
    } else if (where.eliminated) {
      notice(K.say("play.out"), "");
    } else if (where.queue) {
      tellQueued(where.table, where.queue);
      waitAgain(known ? cup.body.player_count : 0);
    } else if (!where.table) {
      notice(where.tournament_status === "running" || where.tournament_status === "starting"
        ? K.say("play.waiting_table") : K.say("play.waiting_start"), "");
      waitAgain(known ? cup.body.player_count : 0); // players keep joining: the header counts them
    }
    $("you-text").textContent = text;
  }

  // The player's table waits for a slot (a paced deployment): its place and start.
  function tellQueued(ref, queue) {
    const lang = document.documentElement.lang || "en";
    const start = new Date(queue.expected_start * 1000);
    const time = start.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" });
    const place = queue.place.toLocaleString(lang);
    notice(K.say("play.queued", { table: ref, place, time }), "");
  }

  // A player waiting for the start reads where they are (and the header) again now and
  // then: slowly, and the slower the more players there are, so that all of them together
  // ask the API for about WAITING_READS requests a second, at any size (every 5 s would
  // be 200,000 a second for a million waiting phones: 20 times API Gateway's account
  // quota). The seating itself arrives on the socket (`seated`); this is the fallback.
  const WAITING_READS = 20;
  let waiting = null;
  function waitAgain(players) {
    clearTimeout(waiting);
    const pause = Math.max(15, players / WAITING_READS) * (0.75 + Math.random() / 2);
    waiting = setTimeout(() => { waiting = null; whereabouts(); }, pause * 1000);
  }

  // A seating means the tournament has moved on (started, or a new round): the header
  // read when the page opened would still say "open".
  async function refreshHeader() {
    clearTimeout(waiting);
    const cup = await K.api("GET", base);
    if (cup.status === 200) showTournament(cup.body);
  }

  // The header as the tournament stands now: its status and how many play.
  function showTournament(cup) {
    // seated while the start job still seats others: for this player it has begun
    showStatus(cup.status === "starting" && table ? "running" : cup.status);
    const players = document.querySelector("header .players");
    if (players) players.textContent = K.count(cup.player_count, "players");
    const title = cup.name || K.say("tournament.unnamed", { id: cup.id });
    if ($("tournament-name").textContent !== title) {
      $("tournament-name").textContent = title;
      TITLE = K.say("play.title", { title });
      document.title = TITLE;
    }
    document.querySelector("header .game").textContent = K.TITLES[cup.game] || cup.game;
    document.querySelector("header .tables").textContent =
      K.say("tournament.tables", { size: cup.table_size, advance: cup.advance });
  }

  function showStatus(status) {
    const badge = document.querySelector("header .badge");
    if (!badge) return;
    badge.textContent = K.say("status." + status);
    badge.className = "badge " + status;
    badge.dataset.status = status;
  }

  async function openTable(ref) {
    table = ref;
    view = null;
    over = false;
    $("story").replaceChildren();
    story = new K.Story($("story"), seat.player, ref, names);
    for (const id of ["cup-card", "table-card", "story-card"]) $(id).hidden = false;
    $("table-title").textContent = K.say("play.table", { ref });
    $("cup-table").textContent = ref;
    notice("");
    await readView(); // first: it names the players the story tells of
    await catchUp();
  }

  function tablePath() {
    return base + "/tables/" + encodeURIComponent(table);
  }

  // A table read that fails (the service busy, the network away) is tried again after a
  // pause: the push it follows up may be the last one for a while.
  let readPause = 1000;
  function again(read) {
    const at = table;
    setTimeout(() => at === table && read(), readPause);
    readPause = Math.min(readPause * 2, 8000);
  }

  async function catchUp() {
    const answer = await K.api("GET", tablePath() + "/events?after=" + story.version, undefined, seat.token);
    if (answer.status !== 200) return answer.status === 404 ? undefined : again(catchUp);
    readPause = 1000;
    story.add(answer.body.records);
    if (answer.body.version === (view && view.version)) learnDeadline(answer.body.deadline);
    if (!view || answer.body.version > view.version || answer.body.over !== over) await readView();
  }

  async function readView() {
    const answer = await K.api("GET", tablePath() + "/me", undefined, seat.token);
    if (answer.status !== 200) return answer.status === 404 ? undefined : again(readView);
    readPause = 1000;
    learnNames(answer.body.players);
    show(answer.body.view, answer.body.over);
    learnDeadline(answer.body.deadline);
  }

  function learnNames(players) {
    for (const player of players || []) names[player.id] = player.name;
  }

  function show(newView, isOver) {
    if (view && newView.version < view.version) return;
    // The same version again (a push after the answer, a catch-up): nothing moved, and
    // redrawing the buttons would take a tap landing on them away from the player.
    const unchanged = view && newView.version === view.version && isOver === over;
    if (!view || newView.version !== view.version) deadline = null; // learnt with the version
    view = newView;
    over = isOver;
    $("seats").replaceChildren(K.seatsTable(view, names, seat.player));
    $("facts").replaceChildren(K.facts(view, names));
    const toAct = view.to_act;
    $("turn").textContent = over ? K.say("play.table_over") : K.say("play.turn_line", {
      turn: view.version,
      who: toAct === seat.player ? K.say("play.your_turn_lower") : K.say("play.to_act", { name: K.nameOf(names, toAct) }),
    });
    alertTurn(!over && toAct === seat.player);
    tick();
    if (unchanged) return;
    drawCup();
    drawActions();
  }

  function drawCup() {
    const cup = $("cup");
    cup.replaceChildren();
    $("cup-title").textContent = K.say(over ? "play.your_result" : "play.your_dice");
    if (over) return;
    let dice = null;
    let what = K.say("play.nothing_yet");
    if (view.game === "maexchen") {
      if (typeof view.your_throw === "number") {
        dice = K.diceOf(view.your_throw);
        what = K.say("play.your_throw", { dice: view.your_throw });
      } else if (typeof view.your_throw_under_cup === "number") {
        dice = K.diceOf(view.your_throw_under_cup);
        what = K.say("play.under_cup", { dice: view.your_throw_under_cup });
      }
    } else if (view.game === "zweiundvierzig" && view.round && (view.round.throws || []).length) {
      const throws = view.round.throws;
      dice = K.diceOf(throws[throws.length - 1]);
      what = K.say("play.throws_round", { throws: throws.join(", ") });
    } else if (view.game === "mariechen") {
      const mine = (view.seats || []).find((s) => s.player === seat.player);
      if (mine && mine.throws && mine.throws.length) {
        dice = [mine.throws[mine.throws.length - 1]];
        what = K.say("play.throws_score", { throws: mine.throws.join(", "), score: mine.score });
      }
    }
    const row = dice ? K.diceRow(dice) : K.diceRow([0, 0], true);
    row.id = "my-dice";
    const wrap = K.el("span", "big");
    wrap.append(row);
    cup.append(wrap, K.el("span", "what", what));
  }

  function drawActions() {
    const box = $("actions");
    box.replaceChildren();
    box.dataset.version = String(view.version); // the state the buttons act on
    const card = $("cup-card");
    const mine = !over && view.to_act === seat.player;
    card.classList.toggle("your-turn", mine);
    if (over) {
      const ranking = view.ranking || [];
      const place = ranking.indexOf(seat.player) + 1;
      $("prompt").textContent = place
        ? K.say("play.placed_table", {
          place, seats: ranking.length, fate: K.say(place <= view.survivors ? "play.go_on" : "play.are_out"),
        })
        : K.say("play.table_over");
      return;
    }
    if (!mine) {
      $("prompt").textContent = K.say("play.wait_for", { name: K.nameOf(names, view.to_act) });
      return;
    }
    $("prompt").textContent = view.game === "maexchen" && view.stage === "announce"
      ? K.say("play.announce")
      : view.game === "maexchen" && view.stage === "announce_blind"
        ? K.say("play.announce_blind")
        : K.say("play.your_turn");
    for (const action of view.legal_actions || []) {
      const announce = action.kind === "announce";
      const text = announce ? String(action.value) + (action.value === 21 ? " Mäxchen" : "") : label(action.kind);
      const button = K.el("button", announce ? "announce" : action.kind, text);
      button.type = "button";
      button.dataset.kind = action.kind;
      if (announce) button.dataset.value = String(action.value);
      if (announce && action.value === view.your_throw) button.classList.add("truth");
      button.onclick = () => act(action);
      button.disabled = busy; // drawn while an action is on its way: on once it is answered
      box.append(button);
    }
  }

  // An action is sent until the service answers it: a lost connection or a failing
  // service (status 0, 5xx, 429) sends it again with the same Idempotency-Key, so it
  // is applied once, until it is answered or the table has moved on without it. The
  // buttons come back whatever happens: never a dead button.
  async function act(action) {
    if (busy) return;
    busy = true;
    enableActions(false);
    const sent = view.version;
    const key = K.randomKey();
    let pause = 500;
    try {
      for (;;) {
        const answer = await K.api("POST", tablePath() + "/actions", { version: sent, action }, seat.token, key);
        if (answer.status === 200) {
          notice("");
          learnNames(answer.body.players);
          show(answer.body.view, answer.body.over);
          await catchUp();
          return;
        }
        if (answer.status && answer.status < 500 && answer.status !== 429) {
          notice((answer.body && answer.body.message) || K.say("play.not_taken", { status: answer.status }), "bad");
          await readView();
          return;
        }
        if (!view || view.version !== sent || over) return; // the table moved on meanwhile
        if (deadline && K.serverNow() / 1000 > deadline + 5) {
          notice(K.say("play.timed_out"), "bad");
          await readView();
          return;
        }
        notice(K.say("play.retrying"), "");
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, 4000);
      }
    } finally {
      busy = false;
      enableActions(true);
    }
  }

  // The buttons on or off where they are: replacing them would lose a tap.
  function enableActions(enabled) {
    for (const button of $("actions").querySelectorAll("button")) button.disabled = !enabled;
  }

  // One message a change of a table you sit at: `table_events`, marked `seated` at a new
  // table and carrying `your_turn` (the deadline and your view) when you are to act.
  function onMessage(message) {
    if (message.type === "table_events" && message.seated && message.table !== table) {
      learnNames(message.players);
      openTable(message.table).then(refreshHeader);
    } else if (message.type === "table_events" && message.table === table) {
      learnNames(message.players);
      const first = message.records.length ? message.records[0].version : message.version;
      if (first > story.version + 1) catchUp();
      else story.add(message.records);
      const turn = message.your_turn;
      if (turn && turn.view && (!view || turn.view.version >= view.version)) {
        show(turn.view, false);
        learnDeadline(turn.deadline);
      } else if (!view || message.version > view.version) readView();
    } else if (message.type === "queued" && message.table !== table) {
      learnNames(message.players);
      showStatus("running"); // a table is queued once the tournament has begun
      tellQueued(message.table, message.queue);
    } else if (message.type === "eliminated" || message.type === "tournament_finished") {
      whereabouts();
    }
  }

  start();
})(window.Knobelcup);

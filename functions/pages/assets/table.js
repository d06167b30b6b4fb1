// Drawing a table for the watch and play pages: dice as pips, the seats, what stands
// at the table, and its story (records told by story.js, newest first). Every text is
// set with textContent.
"use strict";
(function (K) {
  const el = (...args) => K.el(...args);
  const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
  const HIDDEN_SEAT_KEYS = new Set(["player", "timeouts", "eliminated", "forfeited", "hits"]);
  const NOT_FACTS = new Set(["game", "version", "options", "seats", "to_act", "legal_actions", "ranking",
    "survivors", "your_throw", "your_throw_under_cup", "round", "throw_off"]);

  function die(value) {
    const face = el("span", "die");
    face.dataset.value = String(value);
    face.setAttribute("role", "img");
    face.setAttribute("aria-label", K.say("table.die", { value }));
    for (let cell = 0; cell < 9; cell++) face.append(el("i", (PIPS[value] || []).includes(cell) ? "pip" : ""));
    return face;
  }

  function hiddenDie() {
    const face = el("span", "die hidden", "?");
    face.setAttribute("role", "img");
    face.setAttribute("aria-label", K.say("table.hidden_die"));
    return face;
  }

  // 53 → [5, 3]; one die (Mariechen) stays one.
  function diceOf(value) {
    return value >= 10 ? [Math.floor(value / 10), value % 10] : [value];
  }

  function diceRow(dice, hidden) {
    const row = el("span", "dice");
    for (const value of dice) row.append(hidden ? hiddenDie() : die(value));
    return row;
  }

  function nameOf(names, player) {
    return Object.prototype.hasOwnProperty.call(names, player) ? names[player] : player;
  }

  // A fact's name in the catalogue's words (fact.<key>), else the key as words.
  function words(key) {
    return K.knows("fact." + key) ? K.say("fact." + key) : key.replace(/_/g, " ");
  }

  // A value in words: fact.<key>.<value> where the catalogue has it ("stage announce":
  // "Phase Ansage"), players by name.
  function show(value, names, key) {
    if (value === null || value === undefined) return "—";
    if (value === true) return K.say("watch.yes");
    if (value === false) return K.say("watch.no");
    if (typeof value === "string" && key && K.knows("fact." + key + "." + value)) return K.say("fact." + key + "." + value);
    if (typeof value === "string") return nameOf(names, value);
    if (Array.isArray(value)) return value.map((v) => show(v, names)).join(", ") || "—";
    if (typeof value === "object") {
      return Object.entries(value).map(([k, v]) => words(k) + ": " + show(v, names, k)).join("; ");
    }
    return String(value);
  }

  function isOut(seat) {
    return seat.eliminated === true || seat.forfeited === true || (seat.status && seat.status !== "playing");
  }

  // The seats: best first once over, the player to act marked, `me` in bold.
  function seatsTable(view, names, me) {
    const seats = view.seats || [];
    const table = el("table", "seats");
    if (!seats.length) return table;
    const keys = Object.keys(seats[0]).filter((k) => !HIDDEN_SEAT_KEYS.has(k));
    const ranking = view.ranking || [];
    const head = el("tr");
    if (ranking.length) head.append(el("th", "", K.say("watch.place")));
    head.append(el("th", "", K.say("watch.player")));
    for (const key of keys) head.append(el("th", "", key === "penalty_points" ? K.say("table.points") : words(key)));
    table.append(head);
    const ordered = ranking.length
      ? [...seats].sort((a, b) => ranking.indexOf(a.player) - ranking.indexOf(b.player))
      : seats;
    for (const seat of ordered) {
      const row = el("tr");
      row.dataset.player = seat.player;
      if (seat.player === view.to_act) row.classList.add("to-act");
      if (seat.player === me) row.classList.add("me");
      if (ranking.length) {
        const place = ranking.indexOf(seat.player) + 1;
        row.classList.add(place <= (view.survivors || 0) ? "on" : "out");
        row.append(el("td", "num", place));
      } else if (isOut(seat)) {
        row.classList.add("gone");
      }
      const who = seat.player === me ? K.say("table.you", { name: nameOf(names, seat.player) }) : nameOf(names, seat.player);
      row.append(el("td", "", who));
      for (const key of keys) {
        const cell = el("td", "num");
        const value = seat[key];
        if (key === "throws" && Array.isArray(value)) cell.append(diceRow(value));
        else if (key === "penalty_points" && view.options && view.options.penalty_limit) {
          cell.textContent = K.say("table.of_limit", { value, limit: view.options.penalty_limit });
        } else cell.textContent = show(value, names, key);
        row.append(cell);
      }
      table.append(row);
    }
    return table;
  }

  // What stands at the table: the announcement to beat (as dice), the round, the pot.
  function facts(view, names) {
    const list = el("dl", "facts");
    const add = (term, value) => {
      list.append(el("dt", "", term));
      const detail = el("dd");
      if (value instanceof Node) detail.append(value);
      else detail.textContent = value;
      list.append(detail);
    };
    if (view.game === "maexchen" && view.announcement !== null && view.announcement !== undefined) {
      const said = el("span");
      said.append(diceRow(diceOf(view.announcement)));
      said.append(document.createTextNode(K.say("table.announced_by", { value: view.announcement, name: nameOf(names, view.announcer) })));
      add(K.say("table.to_beat"), said);
    }
    if (view.round && typeof view.round === "object") {
      add(K.say("table.round"), K.say("table.round_limit", { number: view.round.number, limit: view.round.throw_limit }));
    } else if (view.round !== undefined) add(K.say("table.round"), String(view.round));
    for (const [key, value] of Object.entries(view)) {
      if (NOT_FACTS.has(key) || key === "announcement" || key === "announcer") continue;
      add(words(key), show(value, names, key));
    }
    return list;
  }

  // The story of one table: records added as they come, each told once, newest first.
  class Story {
    constructor(list, me, table, names) {
      this.list = list;
      this.me = me;
      this.narrator = new K.Narrator(me, table, names);
      this.version = -1;
    }

    add(records) {
      for (const record of records) {
        if (record.version <= this.version) continue;
        this.version = record.version;
        this.list.prepend(this.item(record));
      }
    }

    item(record) {
      const item = el("li");
      item.dataset.version = String(record.version);
      if (this.me && record.player === this.me) item.classList.add("mine");
      const lines = this.narrator.lines(record);
      lines.forEach((line, index) => {
        const paragraph = el("p");
        if (index === 0) paragraph.append(el("span", "turn", "#" + record.version));
        paragraph.append(document.createTextNode(line));
        item.append(paragraph);
      });
      const pictures = el("span", "dice");
      for (const event of record.events || []) {
        if (event.type === "DiceThrown" && Array.isArray(event.dice)) pictures.append(diceRow(event.dice));
        if (event.type === "Doubted" && typeof event.revealed === "number") {
          pictures.append(diceRow(diceOf(event.revealed)));
        }
      }
      if (pictures.childElementCount) item.append(pictures);
      return item;
    }
  }

  Object.assign(K, { die, hiddenDie, diceOf, diceRow, seatsTable, facts, nameOf, Story });
})((window.Knobelcup = window.Knobelcup || {}));

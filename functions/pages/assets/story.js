// A table's event feed told in sentences, in the browser: the same words as the
// terminal client's narrator (cli/table_story.py), sentence for sentence, both from the
// catalogue's story.* keys (core/words.py, handed over with the page as #words, read by
// live.js's K.say) in the page's language; a test runs both over the same records. `new Knobelcup.Narrator(me, table, names).lines(record)`
// tells one record (me: the player told as "you", or null for a spectator).
"use strict";
(function (K) {
  // Written from the game modules (Game.title): python -m functions.pages.titles
  const TITLES = { maexchen: "Mäxchen", mariechen: "Mariechen", zweiundvierzig: "42 muss kommen" };
  const PHASES = new Set(["hinrunde", "playoff", "rueckrunde"]);
  const MAEXCHEN = 21;

  // The page's language (the catalogue's words come with the page, live.js's K.say).
  const lang = () => document.documentElement.lang || "en";

  // A place as a sentence says it: "3rd" in English, "3" in German ("Platz 3").
  function ordinal(number) {
    if (lang() === "de") return String(number);
    if (number % 100 >= 10 && number % 100 <= 20) return number + "th";
    return number + ({ 1: "st", 2: "nd", 3: "rd" }[number % 10] || "th");
  }

  function throwValue(dice) {
    const [high, low] = [...dice].sort((a, b) => b - a);
    return high * 10 + low;
  }

  // Python's str() of the JSON values an event holds, for events told plainly.
  function pyStr(value) {
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
    if (typeof value === "object") {
      return "{" + Object.entries(value).map(([k, v]) => pyRepr(k) + ": " + pyRepr(v)).join(", ") + "}";
    }
    return String(value);
  }

  function pyRepr(value) {
    return typeof value === "string" ? "'" + value + "'" : pyStr(value);
  }

  // Every sentence is the catalogue's (story.*): cli/table_story.py, method for method.
  class Narrator {
    constructor(me, table, names) {
      this.me = me === undefined ? null : me;
      this.table = table || "";
      this.names = names || {};
      this.game = "";
      this.seats = [];
      this.options = {};
      this.survivors = 1;
      this.lastThrow = {};
    }

    w(key, values) {
      return K.say(key, values);
    }

    name(player) {
      if (player === this.me) return this.w("story.you");
      const key = String(player);
      return Object.prototype.hasOwnProperty.call(this.names, key) ? this.names[key] : key;
    }

    // At the start of a line only "you" ("du") is capitalised, never a name or an id.
    subject(text) {
      const you = this.w("story.you");
      return text === you || text.startsWith(you + " ") ? text.slice(0, 1).toUpperCase() + text.slice(1) : text;
    }

    // The sentence `key` about `player`: its .you form when they are `me`.
    by(key, player, values) {
      return this.w(player === this.me ? key + ".you" : key, { name: this.name(player), ...(values || {}) });
    }

    told(key, player, values) {
      return this.subject(this.by(key, player, values));
    }

    whose(player, value) {
      return this.w(player === this.me ? "story.whose.you" : "story.whose", { name: this.name(player), value });
    }

    listing(players) {
      const names = players.map((p) => this.name(p));
      if (names.length === 1) return names[0];
      return this.w("story.and", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
    }

    after(throws) {
      return K.count(throws, "after_throws");
    }

    lines(record) {
      const events = record.events || [];
      this.action = record.action ? record.action.kind : null;
      const said = [];
      let index = 0;
      while (index < events.length) {
        const [line, used] = this.tell(events[index], index + 1 < events.length ? events[index + 1] : null);
        said.push(...line.split("\n"));
        index += used;
      }
      return said;
    }

    tell(event, following) {
      const kind = event.type;
      const then = following ? following.type : null;
      if ((kind === "Doubted" || kind === "TurnTimedOut") && then === "PenaltyGiven") {
        return [this.head(event) + " — " + this.penalty(following) + ".", 2];
      }
      if (kind === "DiceThrown" && then === "ThrowCounted") return [this.counted(event, following), 2];
      const teller = TELLERS[kind];
      if (!teller) {
        const fields = Object.entries(event)
          .filter(([k]) => k !== "type")
          .map(([k, v]) => k + " " + pyStr(v))
          .join(", ");
        return [this.w("story.unknown", { kind, fields }), 1];
      }
      return [teller.call(this, event), 1];
    }

    head(event) {
      if (event.type === "TurnTimedOut") return this.told("story.timed_out", event.player);
      const doubt = this.told("story.doubted", event.player, {
        whose: this.whose(event.announcer, event.announcement),
        revealed: event.revealed,
      });
      return event.announcement_held ? this.w("story.held", { doubt }) : doubt;
    }

    penalty(event) {
      const limit = this.options.penalty_limit;
      const total = limit ? this.w("table.of_limit", { value: event.total, limit }) : String(event.total);
      return this.by("story.penalty", event.player, { points: event.points, total });
    }

    tableSeated(event) {
      this.game = event.game;
      this.seats = [...event.seats];
      this.options = { ...(event.options || {}) };
      this.survivors = event.survivors;
      const others = this.seats.filter((p) => p !== this.me);
      const who = this.seats.includes(this.me)
        ? this.w("story.play_with", { others: this.listing(others) })
        : this.listing(this.seats);
      const goesOn = K.count(this.survivors, "go_on");
      const game = TITLES[this.game] || this.game;
      return this.table
        ? this.w("story.seated_table", { table: this.table, game, who, goes_on: goesOn })
        : this.w("story.seated", { game, who, goes_on: goesOn });
    }

    diceThrown(event) {
      const player = event.player;
      const dice = event.dice;
      if (this.game === "maexchen") {
        if (event.visibility === "nobody" && dice === null) return this.told("story.threw_blind", player);
        if (dice === null) return this.told("story.threw_cup", player);
        const key = dice[0] === dice[1] ? "story.threw_pasch" : "story.threw";
        return this.told(key, player, { value: throwValue(dice) });
      }
      if (this.game === "zweiundvierzig") {
        if (dice === null) {
          this.lastThrow[player] = this.w("story.covered_fifth");
          return this.told("story.threw_fifth", player);
        }
        this.lastThrow[player] = String(throwValue(dice));
        return this.told("story.threw", player, { value: throwValue(dice) });
      }
      if (this.game === "mariechen") return this.told("story.threw_off", player, { value: dice[0] });
      return this.told("story.threw", player, { value: pyStr(dice) });
    }

    turnTimedOut(event) {
      return this.told("story.timed_out", event.player) + ".";
    }

    penaltyGiven(event) {
      return this.subject(this.penalty(event)) + ".";
    }

    playerForfeited(event) {
      if (this.action === "forfeit") return this.told("story.disqualified", event.player);  // disqualified
      return this.told("story.forfeited", event.player);
    }

    playerEliminated(event) {
      return this.told("story.eliminated", event.player);
    }

    matchFinished(event) {
      const ranking = [...event.ranking];
      const places = ranking.map((p, i) => i + 1 + ". " + this.name(p)).join(", ");
      let said = this.w("story.over", { places });
      if (ranking.includes(this.me)) {
        const place = ranking.indexOf(this.me) + 1;
        const fate = this.w(place <= this.survivors ? "story.through" : "story.out");
        said += "\n" + this.w("story.your_place", { place, seats: ranking.length, fate });
      }
      return said;
    }

    roundStarted(event) {
      const phase = String(event.phase);
      const shown = PHASES.has(phase) ? this.w("story.in_phase", { phase: this.w("story.phase." + phase) }) : "";
      return this.by("story.round_started", event.starter, { round: event.round, phase: shown });
    }

    announced(event) {
      const key = event.value === MAEXCHEN && this.game === "maexchen" ? "story.announced_maexchen" : "story.announced";
      return this.told(key, event.player, { value: event.value });
    }

    doubted(event) {
      return this.head(event) + ".";
    }

    turnStarted(event) {
      return this.told("story.turn_started", event.player);
    }

    hit(counted) {
      return this.w(counted.hit ? "story.hit" : "story.missed");
    }

    counted(thrown, counted) {
      return this.subject(this.w("story.counted", {
        name: this.name(counted.player), throw: counted.throw, target: counted.target,
        face: thrown.dice[0], hit: this.hit(counted), score: counted.score,
      }));
    }

    throwCounted(event) {
      return this.subject(this.w("story.counted_plain", {
        name: this.name(event.player), throw: event.throw, target: event.target,
        hit: this.hit(event), score: event.score,
      }));
    }

    throwOffStarted(event) {
      return this.w("story.throw_off", {
        first: event.first_place, last: event.last_place, players: this.listing(event.players),
      });
    }

    turnEnded(event) {
      const player = event.player;
      const throws = event.throws;
      const kept = Object.prototype.hasOwnProperty.call(this.lastThrow, player) ? this.lastThrow[player] : null;
      delete this.lastThrow[player];
      if (throws === 0) return this.told("story.ended_without", player);
      if (kept === null) return this.told("story.stops", player, { after: this.after(throws) });
      return this.told("story.keeps", player, { kept, after: this.after(throws) });
    }

    roundScored(event) {
      const count = Math.min(event.players.length, event.last_throws.length, event.throws.length);
      const turns = [];
      for (let i = 0; i < count; i++) turns.push([event.players[i], event.last_throws[i], event.throws[i]]);
      const told = turns.map(([p, last, n]) => last === null
        ? this.w("story.scored_none", { name: this.name(p) })
        : this.w("story.scored_turn", { name: this.name(p), value: last, after: this.after(n) }));
      if (event.conceded) return this.by("story.conceded", event.worst, { round: event.round });
      const best = event.best ? this.w("story.best", { name: this.name(event.best) }) : "";
      return this.w("story.scored", {
        round: event.round, turns: told.join(", "), worst: this.name(event.worst),
        schitt: mitIstSchitt(turns, event.worst) ? this.w("story.schitt") : "", best,
      });
    }

    stickTaken(event) {
      return this.told("story.stick_taken", event.player, { sticks: event.sticks, pot: event.pot });
    }

    stickPassed(event) {
      const receiver = event.receiver === this.me ? this.w("story.you_to") : this.name(event.receiver);
      return this.told("story.stick_passed", event.giver, {
        receiver, giver_sticks: event.giver_sticks, receiver_sticks: event.receiver_sticks,
      });
    }

    playersLeft(event) {
      if (event.players.length === 1) {
        return this.told("story.left_one", event.players[0], { place: ordinal(event.first_place) });
      }
      return this.subject(this.w("story.left_many", {
        players: this.listing(event.players), first: event.first_place, last: event.last_place,
      }));
    }

    playerPlaced(event) {
      return this.told("story.placed", event.player, { place: ordinal(event.place) });
    }
  }

  // The round's worst threw what another threw with as many throws (Mit ist Schitt).
  function mitIstSchitt(turns, worst) {
    const mine = turns.find(([p, last]) => p === worst && last !== null);
    return !!mine && turns.some(([p, last, n]) => p !== worst && last !== null && last === mine[1] && n === mine[2]);
  }

  const P = Narrator.prototype;
  const TELLERS = {
    TableSeated: P.tableSeated,
    DiceThrown: P.diceThrown,
    TurnTimedOut: P.turnTimedOut,
    PenaltyGiven: P.penaltyGiven,
    PlayerForfeited: P.playerForfeited,
    PlayerEliminated: P.playerEliminated,
    MatchFinished: P.matchFinished,
    RoundStarted: P.roundStarted,
    Announced: P.announced,
    Doubted: P.doubted,
    TurnStarted: P.turnStarted,
    ThrowCounted: P.throwCounted,
    ThrowOffStarted: P.throwOffStarted,
    TurnEnded: P.turnEnded,
    RoundScored: P.roundScored,
    StickTaken: P.stickTaken,
    StickPassed: P.stickPassed,
    PlayersLeft: P.playersLeft,
    PlayerPlaced: P.playerPlaced,
  };

  K.Narrator = Narrator;
  K.ordinal = ordinal;
  K.throwValue = throwValue;
  K.TITLES = TITLES;
})((window.Knobelcup = window.Knobelcup || {}));

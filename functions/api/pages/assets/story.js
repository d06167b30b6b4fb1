// A table's event feed told in sentences, in the browser: the same words as the
// terminal client's narrator (cli/table_story.py), sentence for sentence; a test runs
// both over the same records. `new Knobelcup.Narrator(me, table, names).lines(record)`
// tells one record (me: the player told as "you", or null for a spectator).
"use strict";
(function (K) {
  // Written from the game modules (Game.title): python -m functions.api.pages.titles
  const TITLES = { maexchen: "Mäxchen", mariechen: "Mariechen", zweiundvierzig: "42 muss kommen" };
  const PHASES = { hinrunde: "Hinrunde", playoff: "play-off", rueckrunde: "Rückrunde" };
  const MAEXCHEN = 21;

  function ordinal(number) {
    if (number % 100 >= 10 && number % 100 <= 20) return number + "th";
    return number + ({ 1: "st", 2: "nd", 3: "rd" }[number % 10] || "th");
  }

  function plural(count, noun) {
    return count + " " + noun + (count === 1 ? "" : "s");
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

    name(player) {
      if (player === this.me) return "you";
      const key = String(player);
      return Object.prototype.hasOwnProperty.call(this.names, key) ? this.names[key] : key;
    }

    subject(text) {
      return text === "you" || text.startsWith("you ") ? "You" + text.slice(3) : text;
    }

    actor(player) {
      return this.subject(this.name(player));
    }

    whose(player) {
      return player === this.me ? "your" : this.name(player) + "'s";
    }

    does(player, verb, forYou) {
      return this.name(player) + " " + (player === this.me ? forYou : verb);
    }

    listing(players) {
      const names = players.map((p) => this.name(p));
      return names.length === 1
        ? names[0]
        : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
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
        return [kind + ": " + fields + ".", 1];
      }
      return [teller.call(this, event), 1];
    }

    head(event) {
      if (event.type === "TurnTimedOut") return this.actor(event.player) + " ran out of time";
      return (
        this.actor(event.player) + " doubted " + this.whose(event.announcer) + " " +
        event.announcement + ": it was " + event.revealed +
        (event.announcement_held ? ", the announcement holds" : "")
      );
    }

    penalty(event) {
      const limit = this.options.penalty_limit;
      const total = limit ? event.total + " of " + limit : String(event.total);
      return this.does(event.player, "loses", "lose") + " " + event.points + " (" + total + " penalty points)";
    }

    tableSeated(event) {
      this.game = event.game;
      this.seats = [...event.seats];
      this.options = { ...(event.options || {}) };
      this.survivors = event.survivors;
      const others = this.seats.filter((p) => p !== this.me);
      const who = this.seats.includes(this.me) ? "you play with " + this.listing(others) : this.listing(this.seats);
      const goesOn = this.survivors + " " + (this.survivors === 1 ? "goes" : "go") + " on";
      const title = TITLES[this.game] || this.game;
      return this.table
        ? "Table " + this.table + " (" + title + "): " + who + "; " + goesOn + "."
        : title + ": " + who + "; " + goesOn + ".";
    }

    diceThrown(event) {
      const player = event.player;
      const dice = event.dice;
      if (this.game === "maexchen") {
        if (event.visibility === "nobody" && dice === null) return this.actor(player) + " threw again without looking.";
        if (dice === null) return this.actor(player) + " threw under the cup.";
        return this.actor(player) + " threw " + throwValue(dice) + ".";
      }
      if (this.game === "zweiundvierzig") {
        if (dice === null) {
          this.lastThrow[player] = "a covered fifth throw";
          return this.actor(player) + " threw a fifth time, covered.";
        }
        this.lastThrow[player] = String(throwValue(dice));
        return this.actor(player) + " threw " + throwValue(dice) + ".";
      }
      if (this.game === "mariechen") return this.actor(player) + " threw " + dice[0] + " in the throw-off.";
      return this.actor(player) + " threw " + pyStr(dice) + ".";
    }

    turnTimedOut(event) {
      return this.actor(event.player) + " ran out of time.";
    }

    penaltyGiven(event) {
      return this.subject(this.penalty(event)) + ".";
    }

    playerForfeited(event) {
      if (this.action === "forfeit") {  // the service's move for a disqualified player
        return this.subject(this.does(event.player, "is", "are")) + " disqualified: out of the table.";
      }
      return this.actor(event.player) + " timed out too often: out of the table.";
    }

    playerEliminated(event) {
      return this.subject(this.does(event.player, "is", "are")) + " out of this table.";
    }

    matchFinished(event) {
      const ranking = [...event.ranking];
      const places = ranking.map((p, i) => i + 1 + ". " + this.name(p)).join(", ");
      let said = "The table is over: " + places + ".";
      if (ranking.includes(this.me)) {
        const place = ranking.indexOf(this.me) + 1;
        const through = place <= this.survivors ? "through to what comes next" : "out";
        said += "\nYour place at this table: " + place + " of " + ranking.length + ", " + through + ".";
      }
      return said;
    }

    roundStarted(event) {
      const starts = this.does(event.starter, "starts", "start");
      const phase = PHASES[String(event.phase)] || "";
      return "Round " + event.round + (phase ? " (" + phase + ")" : "") + ": " + starts + ".";
    }

    announced(event) {
      const end = event.value === MAEXCHEN && this.game === "maexchen" ? " — Mäxchen!" : ".";
      return this.actor(event.player) + " announced " + event.value + end;
    }

    doubted(event) {
      return this.head(event) + ".";
    }

    turnStarted(event) {
      return this.subject(this.does(event.player, "throws", "throw")) + " next: six throws.";
    }

    counted(thrown, counted) {
      const hit = counted.hit ? "a hit" : "missed";
      return (
        this.actor(counted.player) + ": throw " + counted.throw + " (target " + counted.target + "): " +
        thrown.dice[0] + ", " + hit + " — score " + counted.score + "."
      );
    }

    throwCounted(event) {
      const hit = event.hit ? "a hit" : "missed";
      return (
        this.actor(event.player) + ": throw " + event.throw + " (target " + event.target + "): " +
        hit + " — score " + event.score + "."
      );
    }

    throwOffStarted(event) {
      return (
        "Throw-off for places " + event.first_place + "-" + event.last_place + ": " +
        this.listing(event.players) + " throw one die each."
      );
    }

    turnEnded(event) {
      const player = event.player;
      const throws = event.throws;
      const kept = Object.prototype.hasOwnProperty.call(this.lastThrow, player) ? this.lastThrow[player] : null;
      delete this.lastThrow[player];
      if (throws === 0) return this.subject(this.does(player, "ends", "end")) + " the turn without a throw.";
      if (kept === null) return this.subject(this.does(player, "stops", "stop")) + " after " + plural(throws, "throw") + ".";
      return this.subject(this.does(player, "keeps", "keep")) + " " + kept + " after " + plural(throws, "throw") + ".";
    }

    roundScored(event) {
      const count = Math.min(event.players.length, event.last_throws.length, event.throws.length);
      const turns = [];
      for (let i = 0; i < count; i++) {
        const last = event.last_throws[i];
        turns.push(this.name(event.players[i]) + " " + (last === null ? "no throw" : last + " after " + event.throws[i]));
      }
      const worst = this.name(event.worst);
      if (event.conceded) return "Round " + event.round + ": " + worst + " conceded with 32.";
      const best = event.best ? ", best " + this.name(event.best) : "";
      return "Round " + event.round + " scored: " + turns.join(", ") + " — worst " + worst + best + ".";
    }

    stickTaken(event) {
      const takes = this.subject(this.does(event.player, "takes", "take"));
      return takes + " a stick: " + event.sticks + " now, " + event.pot + " left in the pot.";
    }

    stickPassed(event) {
      const passes = this.subject(this.does(event.giver, "passes", "pass"));
      return (
        passes + " a stick to " + this.name(event.receiver) + ": " + event.giver_sticks + " left, " +
        event.receiver_sticks + " now."
      );
    }

    playersLeft(event) {
      const places = event.first_place + "-" + event.last_place;
      if (event.players.length === 1) {
        const leaves = this.does(event.players[0], "holds no stick and leaves", "hold no stick and leave");
        return this.subject(leaves) + " the table, placed " + ordinal(event.first_place) + ".";
      }
      return (
        this.subject(this.listing(event.players)) + " hold no stick and leave the table, sharing places " +
        places + " (a play-off orders them)."
      );
    }

    playerPlaced(event) {
      return this.subject(this.does(event.player, "is", "are")) + " placed " + ordinal(event.place) + " at this table.";
    }
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

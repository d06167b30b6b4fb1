// The watch page: a table as any spectator sees it, redrawn in place as it moves on.
// Pushes over the WebSocket (?tournament&table) carry the new records; the spectator
// view is read again after each; the event feed is read while the socket is lost.
"use strict";
(function (K) {
  const data = K.embedded("table-data");
  if (!data) return;
  const main = document.getElementById("live");
  const tournament = main.dataset.tournament;
  const path = "tournaments/" + encodeURIComponent(tournament) + "/tables/" + encodeURIComponent(data.table);
  const names = { ...data.names };
  const story = new K.Story(document.getElementById("story"), null, data.table, names);
  let view = data.view;
  let over = data.over;
  let following = null;

  function draw() {
    const state = document.getElementById("state");
    state.textContent = K.say(over ? "state.over" : "state.playing");
    state.className = "badge " + (over ? "over" : "playing");
    const toAct = view.to_act;
    const line = over ? K.say("state.over") : toAct ? K.say("watch.to_act", { name: K.nameOf(names, toAct) }) : K.say("watch.waiting_dice");
    document.getElementById("turn").textContent = "· " + K.say("watch.turn", { turn: view.version }) + " · " + line;
    document.getElementById("seats").replaceChildren(K.seatsTable(view, names, null));
    const facts = K.facts(view, names);
    const card = K.el("section", "card");
    card.append(K.el("h2", "", K.say("watch.at_the_table")), facts);
    document.getElementById("facts").replaceChildren(...(facts.childElementCount ? [card] : []));
  }

  function learnNames(players) {
    for (const player of players || []) names[player.id] = player.name;
  }

  // A read that fails (the service busy, the network away) is tried again after a
  // pause: the push it follows up may be the table's last, and no other would come.
  let readPause = 1000;
  function again(read) {
    setTimeout(read, readPause);
    readPause = Math.min(readPause * 2, 8000);
  }

  async function readView() {
    const answer = await K.api("GET", path);
    if (answer.status !== 200) return answer.status === 404 ? undefined : again(readView);
    readPause = 1000;
    learnNames(answer.body.players);
    view = answer.body.view;
    over = answer.body.over;
    draw();
    if (over && following) following.close();
  }

  async function catchUp() {
    const answer = await K.api("GET", path + "/events?after=" + story.version);
    if (answer.status !== 200) return answer.status === 404 ? undefined : again(catchUp);
    readPause = 1000;
    story.add(answer.body.records);
    if (answer.body.version > view.version || answer.body.over !== over) await readView();
  }

  function onMessage(message) {
    if (message.type !== "table_events" || message.table !== data.table) return;
    learnNames(message.players);
    const first = message.records.length ? message.records[0].version : message.version;
    if (first > story.version + 1) {
      catchUp();
      return;
    }
    story.add(message.records);
    readView();
  }

  story.add(data.records);
  draw();
  if (!over) {
    following = K.follow({
      query: { tournament, table: data.table },
      onMessage,
      onPoll: catchUp,
      onOpen: catchUp,
    });
  }
})(window.Knobelcup);

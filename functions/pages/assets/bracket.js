// The bracket page (and its projector view, and a table still waiting to be seated):
// read again every data-refresh seconds and swapped in place, never reloaded, until the
// page says it is final (no data-refresh). The tournament's end is pushed over the
// WebSocket, so the champion shows at once.
"use strict";
(function (K) {
  const main = () => document.getElementById("live");
  if (!main() || !main().dataset.refresh) return;
  const tournament = main().dataset.tournament;
  let timer = null;
  let reading = false;
  let following = null;

  async function update() {
    if (reading) return;
    reading = true;
    try {
      const answer = await fetch(location.href, { cache: "no-store" });
      if (answer.status !== 200) return;
      const page = new DOMParser().parseFromString(await answer.text(), "text/html");
      const fresh = page.getElementById("live");
      if (!fresh) return;
      // the header (players, status) may move on while the board stands still
      const header = page.querySelector("header");
      const shown = document.querySelector("header");
      if (header && shown && header.innerHTML !== shown.innerHTML) {
        shown.replaceWith(document.importNode(header, true));
      }
      if (!page.getElementById("table-data") && fresh.innerHTML !== main().innerHTML) {
        main().replaceWith(document.importNode(fresh, true));
      } else if (page.getElementById("table-data")) {
        location.reload(); // a table seated at last: its own page follows it from here
        return;
      }
      if (!main().dataset.refresh) stop();
    } catch (error) {
      // the next turn tries again
    } finally {
      reading = false;
    }
  }

  function stop() {
    clearInterval(timer);
    if (following) following.close();
  }

  timer = setInterval(update, Number(main().dataset.refresh) * 1000);
  following = K.follow({
    query: { tournament },
    onMessage: (message) => {
      if (message.type === "tournament_finished") update();
    },
  });
  document.documentElement.dataset.live = "in place";
})(window.Knobelcup);

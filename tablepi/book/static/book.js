// The players' pages: the live view drawn from the table's stream, the other pages refreshed when the book
// changes. Only textContent is ever written from data: a name is text, whatever it holds.
"use strict";
(function () {
  const T = JSON.parse(document.body.dataset.texts || "{}");
  const page = document.body.dataset.page;
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const RANKS = { T: "10" };
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fill(text, values) {
    return String(text).replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }
  function card(code) {
    const span = el("span", "card" + ("HD".includes(code[1]) ? " red" : ""));
    span.textContent = (SUITS[code[1]] || "?") + (RANKS[code[0]] || code[0]);
    return span;
  }
  function seat(s) { return T["seat_" + s] || s; }
  function drawLive(live) {
    const box = document.getElementById("live");
    if (!box) return;
    const several = live.tables.length > 1;
    box.replaceChildren();
    for (const view of live.tables) {
      const part = el("section", "table");
      part.dataset.table = view.table;
      if (several) part.append(el("h2", "", T.table + " " + view.table));
      drawTable(part, view);
      box.append(part);
    }
  }
  function drawTable(box, view) {
    const state = view.state;
    if (!state) { box.append(el("p", "meta", T.waiting)); return; }
    const phase = T["phase_" + state.phase] || state.phase;
    box.append(el("p", "meta", fill(T.match_deal, { match: state.match, deal: state.deal }) + " · " + phase));
    const trump = state.trump ? SUITS[state.trump] : "–";
    box.append(el("p", "", T.trumps + " " + trump + " · " + seat(state.forehand)));
    const played = {};
    if (state.trick) for (const [s, c] of state.trick.plays) played[s] = c;
    for (const s of ["N", "E", "S", "W"]) {
      const row = el("div", "seat" + (state.to_play === s ? " turn" : ""));
      row.dataset.seat = s;
      row.append(el("span", "", seat(s) + " " + (view.seats[s] || "")));
      const right = el("span", "");
      if (played[s]) right.append(card(played[s]));
      if (state.to_play === s) right.append(el("span", "", " " + T.to_play));
      row.append(right);
      box.append(row);
    }
    const lines = state.open_lines || {};
    box.append(el("p", "lines", fill(T.open_lines, { ns: lines.NS, ew: lines.EW })));
    const slate = el("ol", "slate");
    for (const entry of state.slate || []) slate.append(el("li", "", entry.text));
    box.append(el("h3", "", T.slate), slate);
  }
  let bookVersion = null;
  async function refresh() {
    const answer = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!answer.ok) return;
    const doc = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = doc.getElementById("main");
    const main = document.getElementById("main");
    if (fresh && main) main.replaceChildren(...fresh.childNodes);
    hook();
  }
  function hook() {
    const button = document.getElementById("print");
    if (button) button.onclick = () => window.print();
  }
  hook();
  const lang = new URLSearchParams(location.search).get("lang");
  const source = new EventSource("/events" + (lang ? "?lang=" + encodeURIComponent(lang) : ""));
  source.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (page === "live") drawLive(data.live);
    if (bookVersion !== null && data.book !== bookVersion && page !== "live") refresh();
    bookVersion = data.book;
    document.body.dataset.book = String(data.book);
  };
})();

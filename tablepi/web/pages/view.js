// What every page shares (escaping, texts, the clock, its live stream) and drawing one table's live view (the
// table page and the overlay). The page defines T, its texts in its language (tablepi/web/texts.py).
const SUITS = {S: "♠", H: "♥", D: "♦", C: "♣"};
function esc(s) { return String(s).replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;","\"":"&quot;"}[c])); }
function fill(text, values) { return text.replace(/\{(\w+)\}/g, (m, k) => k in values ? String(values[k]) : m); }
// The time as the page's language writes it: 24-hour in lb, de and fr (a "PM" clock only in English).
function timeText(date, withDate) {
  const lang = document.documentElement.lang || "en";
  const options = {hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: lang === "en" ? undefined : "h23"};
  if (withDate) Object.assign(options, {year: "numeric", month: "2-digit", day: "2-digit"});
  return date.toLocaleString(lang === "lb" ? "de-LU" : lang, options);
}
// A live stream that comes back: an EventSource gives up for good on an HTTP error (a server full of open pages
// answers 503 with Retry-After, a restarted one 502 behind a proxy), so the page opens a new one after a while.
function openStream(url, onmessage) {
  let wait = 2000;
  const open = () => {
    const source = new EventSource(url);
    source.onmessage = e => { wait = 2000; onmessage(e); };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(open, wait + Math.random() * wait);
        wait = Math.min(wait * 2, 60000);
      }
    };
  };
  open();
}
function seatName(seat) { return T["seat_" + seat] || seat; }
function cardHtml(text) {
  const suit = text.slice(-1), rank = text.slice(0, -1).replace("T", "10");
  const red = suit === "H" || suit === "D";
  return `<span class="card${red ? " red" : ""}" data-card="${esc(text)}">${esc(rank)}${SUITS[suit] || suit}</span>`;
}
function setText(doc, id, text) { const el = doc.getElementById(id); if (el) el.textContent = text; }
function renderTable(d, doc) {
  setText(doc, "table", d.table || "");
  const s = d.state, seats = d.seats || {};
  const who = seat => seat ? (seats[seat] ? `${seatName(seat)} ${seats[seat]}` : seatName(seat)) : "–";
  setText(doc, "where", s ? fill(T.where, {round: d.round || "–", match: s.match, deal: s.deal,
                                           phase: T["phase_" + s.phase] || s.phase}) : T.no_events);
  setText(doc, "online", d.online ? T.online : T.offline);
  const seatsEl = doc.getElementById("seats");
  if (seatsEl) seatsEl.textContent = Object.keys(seats).length ? ["N", "E", "S", "W"].map(x => who(x)).join(" · ") : "";
  setText(doc, "to-play", s ? who(s.to_play) : "–");
  setText(doc, "trump", s && s.trump ? SUITS[s.trump] : "–");
  setText(doc, "trick-number", s && s.trick ? s.trick.number : "");
  const trick = doc.getElementById("trick");
  if (trick) trick.innerHTML = s && s.trick ? s.trick.plays.map(([seat, card]) =>
      `<span class="play" data-seat="${seat}">${esc(who(seat))}: ${cardHtml(card)}</span>`).join(" ") : "";
  const lines = doc.getElementById("lines");
  if (lines) lines.textContent = s ? fill(T.open_lines, {ns: s.open_lines.NS, ew: s.open_lines.EW}) : "";
  const slate = doc.getElementById("slate");
  if (slate) slate.innerHTML = s ? s.slate.map(e => `<li>${esc(e.text)}</li>`).join("") : "";
  const warnings = doc.getElementById("warnings");
  if (warnings) warnings.innerHTML = s ? s.warnings.map(w => `<div class="tag">${esc(w.message)}</div>`).join("") : "";
}

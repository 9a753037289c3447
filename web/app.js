// The explorer: a chessground board over Syotti's JSON API. The browser knows no rules: the
// server gives the legal moves, each with the position it leads to and its proved verdict.
import { Chessground } from '/vendor/chessground.min.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1';
const $ = (id) => document.getElementById(id);

// The game on the board: FENs from the start, the moves between them, and where we stand.
const game = { fens: [START], moves: [], at: 0 };
let current = null; // the probe of the position on the board
let request = 0;
let analysing = false; // the user wants live analysis
let source = null; // the running analysis stream

const board = Chessground($('board'), {
  fen: START,
  movable: { free: false, color: 'white', showDests: true, events: { after: onBoardMove } },
  draggable: { showGhost: true },
  highlight: { lastMove: true },
});

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = !message;
}

function verdictText(v, side) {
  if (!v) return 'not proved';
  if (v.source === 'rules') {
    return v.winner ? `${v.winner} has won (${v.termination})` : `drawn (${v.termination})`;
  }
  const moves = Math.ceil(v.plies / 2);
  const distance = v.exact ? `in ${moves} move${moves === 1 ? '' : 's'}` : `(through the endgame tables, ${v.plies} plies to them)`;
  const who = side && v.winner === side ? 'wins' : 'loses';
  return side ? `${who} ${distance}` : `${v.winner} wins ${distance}`;
}

async function probe(fen) {
  const variant = $('variant').value;
  const url = `/api/probe?fen=${encodeURIComponent(fen)}&variant=${variant}`;
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

async function show() {
  const fen = game.fens[game.at];
  const mine = ++request;
  let p;
  try {
    p = await probe(fen);
  } catch (e) {
    showError(e.message);
    return false;
  }
  if (mine !== request) return true; // a newer position is on its way
  showError('');
  current = p;
  $('fen').value = p.fen;
  const dests = new Map();
  for (const m of p.moves) {
    const from = m.uci.slice(0, 2), to = m.uci.slice(2, 4);
    if (!dests.has(from)) dests.set(from, []);
    if (!dests.get(from).includes(to)) dests.get(from).push(to);
  }
  const last = game.moves[game.at - 1];
  board.set({
    fen: p.fen,
    turnColor: p.turn,
    lastMove: last ? [last.slice(0, 2), last.slice(2, 4)] : undefined,
    movable: { color: p.turn, dests },
  });
  $('verdict').textContent = `${p.turn} to move: ${verdictText(p.result, null)}`;
  const line = p.result && p.result.line ? p.result.line : [];
  $('line-box').hidden = line.length === 0;
  $('line').textContent = line.join(' ');
  const rows = p.moves.map((m) => {
    // The mover wins when the position after the move is won by the mover.
    const v = m.after;
    const order = !v ? 1 : v.winner === p.turn ? 0 : 2;
    return { m, v, order };
  });
  rows.sort((a, b) => a.order - b.order || (a.v && b.v ? a.v.plies - b.v.plies : 0));
  const body = $('moves').tBodies[0];
  body.replaceChildren();
  for (const { m, v } of rows) {
    const tr = document.createElement('tr');
    tr.dataset.uci = m.uci;
    tr.className = !v ? '' : v.winner === p.turn ? 'win' : 'loss';
    const san = document.createElement('td');
    san.textContent = m.san;
    const verdict = document.createElement('td');
    verdict.className = 'verdict';
    verdict.textContent = v ? verdictText(v, p.turn) : '';
    tr.append(san, verdict);
    tr.addEventListener('click', () => play(m.uci));
    body.append(tr);
  }
  if (analysing) startAnalysis();
  const history = $('history');
  history.replaceChildren();
  game.moves.forEach((uci, i) => {
    const li = document.createElement('li');
    li.textContent = uci;
    if (i === game.at - 1) li.className = 'current';
    li.addEventListener('click', () => { game.at = i + 1; show(); });
    history.append(li);
  });
  return true;
}

function play(uci) {
  const m = current && current.moves.find((x) => x.uci === uci);
  if (!m) return;
  game.fens.length = game.at + 1;
  game.moves.length = game.at;
  game.fens.push(m.fen_after);
  game.moves.push(uci);
  game.at += 1;
  show();
}

function onBoardMove(from, to) {
  const candidates = current ? current.moves.filter((m) => m.uci.slice(0, 4) === from + to) : [];
  if (candidates.length > 1) {
    const box = $('promotion');
    box.hidden = false;
    box.onclick = (e) => {
      const role = e.target.dataset && e.target.dataset.role;
      if (!role) return;
      box.hidden = true;
      play(from + to + role);
    };
  } else if (candidates.length === 1) {
    play(candidates[0].uci);
  }
}

// Live analysis: the engine's lines as it finds them, scores from White's point of view.
function scoreText(score, turn) {
  const sign = turn === 'white' ? 1 : -1;
  if (score.mate !== undefined) return `#${sign * score.mate}`;
  const cp = (sign * score.cp) / 100;
  return (cp > 0 ? '+' : '') + cp.toFixed(2);
}

function stopAnalysis() {
  if (source) source.close();
  source = null;
}

function startAnalysis() {
  stopAnalysis();
  const fen = current ? current.fen : game.fens[game.at];
  const turn = current ? current.turn : 'white';
  const url = `/api/analyse?fen=${encodeURIComponent(fen)}&variant=${$('variant').value}&seconds=600`;
  const lines = $('analysis');
  lines.replaceChildren();
  $('engine-status').textContent = 'thinking…';
  source = new EventSource(url);
  source.addEventListener('info', (e) => {
    const info = JSON.parse(e.data);
    const li = document.createElement('li');
    li.className = 'info';
    li.textContent = `depth ${info.depth}  ${scoreText(info.score, turn)}  ${info.san}`;
    lines.prepend(li);
    while (lines.children.length > 12) lines.lastChild.remove();
    $('engine-status').textContent = `depth ${info.depth}, ${info.nodes} nodes, ${info.nps} nodes/s`;
  });
  source.addEventListener('message', (e) => {
    const li = document.createElement('li');
    li.textContent = JSON.parse(e.data).text;
    lines.prepend(li);
  });
  source.addEventListener('bestmove', () => {
    $('engine-status').textContent += ' (done)';
    stopAnalysis();
  });
  source.onerror = () => {
    // The stream ended or the server refused it (too many analyses): do not reconnect.
    if (source) $('engine-status').textContent += ' (stopped)';
    stopAnalysis();
  };
}

$('analyse').onclick = () => {
  analysing = !analysing;
  $('analyse').textContent = analysing ? 'stop' : 'analyse';
  if (analysing) startAnalysis();
  else {
    stopAnalysis();
    $('engine-status').textContent += ' (stopped)';
  }
};

$('start').onclick = () => { game.at = 0; show(); };
$('back').onclick = () => { if (game.at > 0) { game.at -= 1; show(); } };
$('forward').onclick = () => { if (game.at < game.moves.length) { game.at += 1; show(); } };
$('end').onclick = () => { game.at = game.moves.length; show(); };
$('flip').onclick = () => board.toggleOrientation();
$('variant').onchange = () => show();
$('line-step').onclick = () => {
  const line = current && current.result && current.result.line;
  if (line && line.length) play(line[0]);
};
$('fen-form').onsubmit = async (e) => {
  e.preventDefault();
  const fen = $('fen').value.trim();
  try {
    const p = await probe(fen);
    game.fens = [p.fen];
    game.moves = [];
    game.at = 0;
    show();
  } catch (err) {
    showError(`cannot load that FEN: ${err.message}`);
  }
};

show();

// The explorer: a chessground board over Syotti's JSON API. The browser knows no rules: the
// server gives the legal moves, each with the position it leads to and its proved verdict.
import { Chessground } from '/vendor/chessground.min.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1';
const $ = (id) => document.getElementById(id);

// The game on the board: FENs from the start, the moves between them (UCI and SAN), and where
// we stand.
const game = { fens: [START], moves: [], sans: [], at: 0 };
let playing = null; // a game against the engine: { side, level }
let thinking = 0; // the engine's move being asked for (a counter, to drop stale answers)
let graph = []; // the evaluation graph's points, by ply
let graphSource = null;
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
    li.textContent = game.sans[i] || uci;
    if (i === game.at - 1) li.className = 'current';
    li.addEventListener('click', () => { game.at = i + 1; show(); });
    history.append(li);
  });
  drawGraph();
  if (playing) engineTurn(p);
  return true;
}

function play(uci) {
  const m = current && current.moves.find((x) => x.uci === uci);
  if (!m) return;
  if (game.at < game.moves.length) clearGraph(); // a new line: the old graph is not its own
  game.fens.length = game.at + 1;
  game.moves.length = game.at;
  game.sans.length = game.at;
  game.fens.push(m.fen_after);
  game.moves.push(uci);
  game.sans.push(m.san);
  game.at += 1;
  show();
}

// The game so far as query parameters: its start and the moves to the position on the board.
function gameQuery() {
  const moves = game.moves.slice(0, game.at).join(' ');
  return `fen=${encodeURIComponent(game.fens[0])}&moves=${encodeURIComponent(moves)}&variant=${$('variant').value}`;
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
  const turn = current ? current.turn : 'white';
  const url = `/api/analyse?${gameQuery()}&seconds=600`;
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

// Play against the engine: it answers whenever the side to move is not the player's.
async function engineTurn(p) {
  const over = p.moves.length === 0 || (p.result && p.result.source === 'rules');
  if (over) {
    $('play-status').textContent = `game over: ${verdictText(p.result, null)}`;
    return;
  }
  if (p.turn === playing.side) {
    $('play-status').textContent = `your move (engine level ${playing.level})`;
    return;
  }
  const mine = ++thinking;
  $('play-status').textContent = 'the engine is thinking…';
  try {
    const response = await fetch(`/api/play?${gameQuery()}&level=${playing.level}&seconds=1`);
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    if (mine !== thinking || !playing || !current || current.fen !== p.fen) return;
    play(body.uci);
  } catch (e) {
    showError(`the engine could not move: ${e.message}`);
  }
}

function stopPlaying() {
  playing = null;
  thinking += 1;
  $('play-start').hidden = false;
  $('play-stop').hidden = true;
  $('play-status').textContent = '';
}

$('play-start').onclick = () => {
  playing = { side: $('play-side').value, level: Number($('level').value) };
  $('play-start').hidden = true;
  $('play-stop').hidden = false;
  board.set({ orientation: playing.side });
  show();
};
$('play-stop').onclick = stopPlaying;

async function loadLevels() {
  const select = $('level');
  let levels = [];
  try {
    levels = await (await fetch('/api/levels')).json();
  } catch (e) {
    levels = [];
  }
  for (const l of levels) {
    const option = document.createElement('option');
    option.value = l.level;
    option.textContent = l.elo ? `level ${l.level} (about ${l.elo} Elo)` : `level ${l.level} (full strength)`;
    select.append(option);
  }
  select.value = '0';
}

// A game from a PGN: checked by the server, then stepped through on the board.
$('pgn-load').onclick = async () => {
  try {
    const response = await fetch('/api/pgn', { method: 'POST', body: $('pgn').value });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    stopPlaying();
    clearGraph();
    $('variant').value = body.variant;
    game.fens = [body.fen, ...body.moves.map((m) => m.fen_after)];
    game.moves = body.moves.map((m) => m.uci);
    game.sans = body.moves.map((m) => m.san);
    game.at = game.moves.length;
    $('graph-run').disabled = false;
    show();
  } catch (e) {
    showError(`cannot import that PGN: ${e.message}`);
  }
};

// The evaluation graph: a short search of every position of the game, White's view.
function clearGraph() {
  if (graphSource) graphSource.close();
  graphSource = null;
  graph = [];
  $('graph').hidden = true;
  $('graph-status').textContent = '';
}

function graphValue(point) {
  if (point.result) return point.result === 'white' ? 1000 : point.result === 'black' ? -1000 : 0;
  if (point.score.mate !== undefined) return point.score.mate > 0 ? 1000 : -1000;
  return Math.max(-1000, Math.min(1000, point.score.cp));
}

function drawGraph() {
  const svg = $('graph');
  if (graph.length === 0) return;
  svg.hidden = false;
  const plies = Math.max(game.moves.length, 1);
  const x = (ply) => (ply / plies) * 600;
  const y = (v) => 80 - (v / 1000) * 76;
  const points = graph
    .map((p, ply) => (p ? `${x(ply).toFixed(1)},${y(graphValue(p)).toFixed(1)}` : null))
    .filter((p) => p);
  svg.innerHTML = `<line class="axis" x1="0" y1="80" x2="600" y2="80"/>`
    + `<polyline class="line" points="${points.join(' ')}"/>`
    + `<line class="now" x1="${x(game.at)}" y1="0" x2="${x(game.at)}" y2="160"/>`;
}

$('graph').onclick = (e) => {
  const r = $('graph').getBoundingClientRect();
  const ply = Math.round(((e.clientX - r.left) / r.width) * game.moves.length);
  game.at = Math.max(0, Math.min(game.moves.length, ply));
  show();
};

$('graph-run').onclick = () => {
  clearGraph();
  const moves = game.moves.join(' ');
  const url = `/api/graph?fen=${encodeURIComponent(game.fens[0])}&moves=${encodeURIComponent(moves)}&variant=${$('variant').value}&seconds=0.2`;
  $('graph-status').textContent = 'evaluating…';
  graphSource = new EventSource(url);
  graphSource.addEventListener('ply', (e) => {
    const point = JSON.parse(e.data);
    graph[point.ply] = point;
    $('graph-status').textContent = `evaluating… ${point.ply}/${game.moves.length}`;
    drawGraph();
  });
  graphSource.addEventListener('done', () => {
    $('graph-status').textContent = `${graph.length} positions evaluated`;
    graphSource.close();
    graphSource = null;
  });
  graphSource.onerror = () => {
    if (graphSource) $('graph-status').textContent += ' (stopped)';
    if (graphSource) graphSource.close();
    graphSource = null;
  };
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
    stopPlaying();
    clearGraph();
    game.fens = [p.fen];
    game.moves = [];
    game.sans = [];
    game.at = 0;
    show();
  } catch (err) {
    showError(`cannot load that FEN: ${err.message}`);
  }
};

loadLevels();
show();

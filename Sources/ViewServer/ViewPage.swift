/// The live view's one page, served at `/` and compiled into the binary: no file is read to serve
/// it and it loads nothing from the network (its script and style are inline, its frames come
/// over the WebSocket). It draws what the server's messages carry:
///
/// - `hello` (first): the keypoint sets (`sets`: each one's `names`, `edges` as index pairs,
///   `sides` per point: `left`, `right` or `center`), the colours and the least keypoint score
///   drawn (`min_score`), the source's name;
/// - `frame`, then the frame's JPEG as a binary message: the frame's index and size, the viewers'
///   figures and the `scene`: `pose` (the frame's JSON line as `posekit pose` writes it, in
///   pixels: people with `id`, keypoints and hands), `gestures` (pinch paths and tips), `action`
///   (the followed person's label, confidence and repetitions), `summary` (seconds per label and
///   repetitions so far), `pipeline` (frames per second, frames dropped);
/// - `end`: the source has ended, with the final `action` and `summary`.
///
/// After drawing a frame it answers `{"type": "shown", "frame": N}`, which lets the server send
/// the next (newest) frame and measure the delay from the frame's arrival to its display.
/// `window.posekitView` exposes what was drawn (for tests, and for a curious user's console).
public enum ViewPage {
    public static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PoseKit live view</title>
<style>
  :root { color-scheme: dark; --bg: #111417; --panel: #1b2026; --text: #e8ecef; --muted: #8d99a6; --accent: #4fc3f7; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
  header { display: flex; gap: 1em; align-items: baseline; padding: .6em 1em; background: var(--panel); }
  header h1 { font-size: 1.05em; margin: 0; font-weight: 600; }
  #source { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  #status { margin-left: auto; font-weight: 600; }
  #status.live { color: #7bd88f; } #status.ended { color: var(--accent); } #status.down { color: #ff8a80; }
  main { display: flex; gap: 1em; padding: 1em; align-items: flex-start; }
  #stage { position: relative; flex: 1 1 auto; min-width: 0; }
  #view { display: block; width: 100%; height: auto; background: #000; border-radius: 6px; }
  #caption { position: absolute; left: 0; right: 0; bottom: 0; padding: .5em .8em; background: rgba(0,0,0,.55);
             border-radius: 0 0 6px 6px; display: flex; gap: 1.2em; align-items: baseline; font-size: 1.5em; }
  #action { font-weight: 700; } #confidence { color: var(--muted); } #reps { margin-left: auto; font-weight: 700; }
  aside { flex: 0 0 19em; display: flex; flex-direction: column; gap: 1em; }
  section { background: var(--panel); border-radius: 6px; padding: .7em .9em; }
  h2 { font-size: .8em; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); margin: 0 0 .5em; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .2em .8em; margin: 0; }
  dt { color: var(--muted); } dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; }
  table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
  th { text-align: left; color: var(--muted); font-weight: 500; font-size: .85em; }
  td, th { padding: .15em 0; } td + td, th + th { text-align: right; }
  tfoot td { border-top: 1px solid #333b44; font-weight: 600; }
  #legend span { display: inline-block; margin-right: .8em; } #legend i { display: inline-block; width: .8em; height: .8em; border-radius: 50%; margin-right: .3em; }
  @media (max-width: 900px) { main { flex-direction: column; } aside { flex-basis: auto; width: 100%; } }
</style>
</head>
<body>
<header><h1>PoseKit live view</h1><span id="source"></span><span id="status">connecting…</span></header>
<main>
  <div id="stage">
    <canvas id="view" width="640" height="360"></canvas>
    <div id="caption"><span id="action">—</span><span id="confidence"></span><span id="reps"></span></div>
  </div>
  <aside>
    <section>
      <h2>Now</h2>
      <dl>
        <dt>Frame</dt><dd id="frame">—</dd>
        <dt>Shown</dt><dd id="fps">—</dd>
        <dt>Pipeline</dt><dd id="pipeline">—</dd>
        <dt>Dropped</dt><dd id="dropped">—</dd>
        <dt>Delay</dt><dd id="delay">—</dd>
        <dt>Viewers</dt><dd id="viewers">—</dd>
      </dl>
    </section>
    <section>
      <h2>Summary</h2>
      <table id="summary">
        <thead><tr><th>Action</th><th>Seconds</th><th>Reps</th></tr></thead>
        <tbody></tbody>
        <tfoot><tr><td>Total</td><td id="total-seconds">0.0</td><td id="total-reps">0</td></tr></tfoot>
      </table>
    </section>
    <section><h2>Colours</h2><div id="legend"></div></section>
  </aside>
</main>
<script>
"use strict";
const view = {
  hello: null, connected: false, ended: null, frozen: false,
  lastDrawn: null,        // {frame, width, height, scene} of the frame on the canvas
  framesDrawn: 0, drawTimes: [], lastAction: null, lastSummary: null,
  heldFrame: null,         // a frame that came while frozen: acknowledged on unfreeze, so frames flow again
  freeze() { this.frozen = true; },
  unfreeze() {
    this.frozen = false;
    if (this.heldFrame !== null && socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "shown", frame: this.heldFrame }));
    this.heldFrame = null;
  },
};
window.posekitView = view;
const canvas = document.getElementById("view");
const context = canvas.getContext("2d", { willReadFrequently: true });
const $ = (id) => document.getElementById(id);
let socket = null, pendingMeta = null;

function connect() {
  socket = new WebSocket(`ws://${location.host}/ws`);
  socket.binaryType = "blob";
  socket.onopen = () => { view.connected = true; setStatus("live", "live"); };
  socket.onclose = () => {
    view.connected = false;
    if (!view.ended) setStatus("disconnected — retrying", "down"); else setStatus("source ended (server gone)", "ended");
    setTimeout(connect, 1000);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === "string") { receive(JSON.parse(event.data)); return; }
    const meta = pendingMeta; pendingMeta = null;
    if (!meta) return;
    createImageBitmap(event.data).then((bitmap) => requestAnimationFrame(() => show(bitmap, meta)));
  };
}

function setStatus(text, kind) { const s = $("status"); s.textContent = text; s.className = kind; }

function receive(message) {
  switch (message.type) {
    case "hello":
      view.hello = message; $("source").textContent = message.source || ""; legend(); break;
    case "frame":
      pendingMeta = message; break;
    case "end":
      view.ended = message; setStatus("source ended", "ended");
      if (message.action) caption(message.action);
      if (message.summary) summary(message.summary);
      break;
  }
}

// One frame: drawn (unless frozen), then acknowledged, which lets the server send the newest next.
function show(bitmap, meta) {
  if (!view.frozen) {
    if (canvas.width !== meta.width || canvas.height !== meta.height) { canvas.width = meta.width; canvas.height = meta.height; }
    context.drawImage(bitmap, 0, 0);
    draw(meta.scene);
    view.lastDrawn = { frame: meta.frame, width: meta.width, height: meta.height, scene: meta.scene };
    view.framesDrawn += 1;
    const now = performance.now();
    view.drawTimes.push(now);
    while (view.drawTimes.length && now - view.drawTimes[0] > 2000) view.drawTimes.shift();
    panel(meta);
  }
  bitmap.close();
  if (view.frozen) { view.heldFrame = meta.frame; return; }
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "shown", frame: meta.frame }));
}

function rgb(c) { return `rgb(${c[0]},${c[1]},${c[2]})`; }

function setOf(keypoints) {
  const sets = view.hello ? view.hello.sets : {};
  for (const name in sets) if (sets[name].names.length === keypoints.length && sets[name].names[0] === keypoints[0].part) return sets[name];
  return null;
}

function thickness() { return Math.max(2, Math.round(Math.min(canvas.width, canvas.height) / 180)); }

// A skeleton: edges in their side's colour (a left-right edge in the centre colour), then the points on top.
function skeleton(keypoints, colours) {
  const set = setOf(keypoints);
  if (!set) return;
  const minScore = view.hello.min_score, width = thickness(), radius = width * 1.4;
  const visible = (k) => k && k.score >= minScore;
  context.lineWidth = width; context.lineCap = "round";
  for (const [a, b] of set.edges) {
    const ka = keypoints[a], kb = keypoints[b];
    if (!visible(ka) || !visible(kb)) continue;
    context.strokeStyle = rgb(set.sides[a] === set.sides[b] ? colours[set.sides[a]] : colours.center);
    context.beginPath(); context.moveTo(ka.x, ka.y); context.lineTo(kb.x, kb.y); context.stroke();
  }
  keypoints.forEach((k, i) => {
    if (!visible(k)) return;
    context.fillStyle = rgb(colours[set.sides[i]]);
    context.beginPath(); context.arc(k.x, k.y, radius, 0, 2 * Math.PI); context.fill();
  });
}

function handColours(hand) {
  const side = hand.side || hand.handedness;   // the person's own hand
  const c = side === "left" ? view.hello.colours.hand_left : side === "right" ? view.hello.colours.hand_right : view.hello.colours.center;
  return { left: c, right: c, center: c };
}

function idLabel(pose) {
  if (pose.id === undefined || pose.id === null) return;
  const seen = pose.keypoints.filter((k) => k.score >= view.hello.min_score);
  if (!seen.length) return;
  const x = Math.min(...seen.map((k) => k.x)), y = Math.min(...seen.map((k) => k.y));
  const size = Math.max(12, Math.round(Math.min(canvas.width, canvas.height) / 28));
  context.font = `600 ${size}px system-ui, sans-serif`;
  const text = `#${pose.id}`, w = context.measureText(text).width + size * 0.6, h = size * 1.3;
  const left = Math.max(0, Math.min(canvas.width - w, x)), top = Math.max(0, Math.min(canvas.height - h, y - h - 4));
  context.fillStyle = "rgba(0,0,0,0.65)"; context.fillRect(left, top, w, h);
  context.fillStyle = "#fff"; context.textBaseline = "middle"; context.fillText(text, left + size * 0.3, top + h / 2);
}

function draw(scene) {
  const colours = view.hello.colours;
  const line = scene.pose || {};
  // Id labels first: a label kept inside the frame never hides a point or a bone.
  for (const pose of line.poses || []) idLabel(pose);
  for (const pose of line.poses || []) {
    skeleton(pose.keypoints, colours);
    for (const hand of pose.hands || []) skeleton(hand.keypoints, handColours(hand));
  }
  for (const hand of line.hands || []) skeleton(hand.keypoints, handColours(hand));
  const gestures = scene.gestures;
  if (gestures) {
    context.lineWidth = thickness(); context.lineJoin = "round"; context.strokeStyle = rgb(colours.pinch_path);
    for (const stroke of gestures.paths) {
      if (stroke.length < 2) continue;
      context.beginPath(); context.moveTo(stroke[0][0], stroke[0][1]);
      for (const p of stroke.slice(1)) context.lineTo(p[0], p[1]);
      context.stroke();
    }
    for (const tip of gestures.tips) {
      const undecided = tip.state === "possiblePinch" || tip.state === "possibleApart";
      context.fillStyle = rgb(tip.state === "pinched" ? colours.tip_pinched : undecided ? colours.tip_undecided : colours.tip_apart);
      for (const p of [tip.thumb, tip.index]) { context.beginPath(); context.arc(p[0], p[1], thickness() * 2, 0, 2 * Math.PI); context.fill(); }
    }
  }
}

function percent(x) { return `${Math.round(x * 100)}%`; }

function caption(action) {
  view.lastAction = action;
  $("action").textContent = action.label ? action.label.replaceAll("_", " ") : "—";
  $("confidence").textContent = action.label && action.confidence > 0 ? percent(action.confidence) : "";
  $("reps").textContent = action.counts ? `${action.repetitions} ${action.repetitions === 1 ? "rep" : "reps"}` : "";
  $("reps").dataset.count = action.repetitions;
}

// The Summary: seconds per label as the classifier names them, repetitions per counted class.
function summary(s) {
  view.lastSummary = s;
  const labels = Object.keys(s.seconds);
  for (const label of Object.keys(s.reps)) if (!labels.includes(label)) labels.push(label);
  const body = $("summary").tBodies[0];
  body.replaceChildren();
  let seconds = 0, reps = 0;
  for (const label of labels) {
    const row = body.insertRow();
    row.dataset.label = label;
    row.insertCell().textContent = label.replaceAll("_", " ");
    const sec = s.seconds[label] || 0, rep = s.reps[label];
    row.insertCell().textContent = sec.toFixed(1);
    row.insertCell().textContent = rep === undefined ? "" : String(rep);
    row.cells[1].dataset.value = sec; row.cells[2].dataset.value = rep === undefined ? "" : rep;
    seconds += sec; reps += rep || 0;
  }
  $("total-seconds").textContent = seconds.toFixed(1); $("total-seconds").dataset.value = seconds;
  $("total-reps").textContent = String(reps); $("total-reps").dataset.value = reps;
}

function panel(meta) {
  const scene = meta.scene;
  $("frame").textContent = String(meta.frame);
  $("fps").textContent = view.drawTimes.length > 1
    ? `${((view.drawTimes.length - 1) * 1000 / (view.drawTimes[view.drawTimes.length - 1] - view.drawTimes[0])).toFixed(1)} frames/s` : "—";
  if (scene.pipeline) {
    $("pipeline").textContent = `${scene.pipeline.fps.toFixed(1)} frames/s`;
    $("dropped").textContent = String(scene.pipeline.dropped);
  }
  const d = meta.delay_ms;
  $("delay").textContent = d && d.median !== null ? `${d.median.toFixed(0)} ms (p95 ${d.p95.toFixed(0)})` : "—";
  $("viewers").textContent = String(meta.viewers);
  if (scene.action) caption(scene.action);
  if (scene.summary) summary(scene.summary);
}

function legend() {
  const c = view.hello.colours;
  const items = [["body left", c.left], ["body right", c.right], ["centre", c.center]];
  if (view.hello.hands) items.push(["left hand", c.hand_left], ["right hand", c.hand_right]);
  if (view.hello.gestures) items.push(["pinch path", c.pinch_path]);
  $("legend").replaceChildren(...items.map(([name, colour]) => {
    const span = document.createElement("span"), dot = document.createElement("i");
    dot.style.background = rgb(colour); span.append(dot, name); return span;
  }));
}

connect();
</script>
</body>
</html>
"""#
}

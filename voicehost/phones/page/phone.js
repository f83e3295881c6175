// voicehost phone page: join a seat, send the microphone, play private speech, show lines.
// No framework: the browser's own WebSocket, Web Audio and AudioWorklet.
"use strict";

const RATE = 16000;           // Hz asked of the audio context (the listener's rate)
const BLOCK = 320;            // frames per block sent (20 ms at 16 kHz)
const AUDIO = 1, SPEECH = 2;  // binary message kinds
const RETRY_MS = 2000;        // between reconnection attempts

const $ = (id) => document.getElementById(id);
let ctx = null, mic = null, socket = null, seq = 0, myName = "", seated = false, leaving = false;
let wakeLock = null;
const playing = new Set();
// What the page did, for anyone inspecting it (the browser tests read it).
window.voicehost = { shown: [], played: [] };

function status(text) { $("status").textContent = text; }

function line(text, isPrivate) {
  const item = document.createElement("li");
  if (isPrivate) {
    item.className = "private";
    item.textContent = "Only you: " + text;
  } else {
    item.textContent = text;
  }
  $("transcript").appendChild(item);
  while ($("transcript").children.length > 200) $("transcript").firstChild.remove();
  window.voicehost.shown.push({ text: text, private: !!isPrivate });
  send({ type: "shown", text: text, private: !!isPrivate });
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

// The audio context's time now, from the output timestamp (finer than currentTime, which only
// moves once per rendered block). null while the output has not started: the two clocks differ
// by the output latency, so they are never mixed.
function contextNow() {
  if (ctx.getOutputTimestamp) {
    const ts = ctx.getOutputTimestamp();
    // contextTime is what is heard now; add the output latency to reach the render clock that
    // stamps the microphone's blocks (Chrome changes that latency in 10 ms steps under load).
    const latency = ctx.outputLatency || 0;
    return ts && ts.performanceTime > 0 ? ts.contextTime + latency + (performance.now() - ts.performanceTime) / 1000 : null;
  }
  return ctx.currentTime;
}

async function startAudio() {
  if (ctx) return;
  try {
    ctx = new AudioContext({ sampleRate: RATE, latencyHint: "interactive" });
  } catch (error) {
    ctx = new AudioContext({ latencyHint: "interactive" });
  }
  await ctx.resume();
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
  });
  await ctx.audioWorklet.addModule("capture.js");
  mic = ctx.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(ctx, "voicehost-capture", {
    numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
    processorOptions: { block: Math.round(BLOCK * ctx.sampleRate / RATE) },
  });
  node.port.onmessage = (event) => sendBlock(event.data.frame, event.data.samples);
  mic.connect(node);
  node.connect(ctx.destination);  // a node must be pulled by the graph to run; it outputs silence
  stream.getAudioTracks().forEach((track) => {
    track.onended = () => status("The microphone stopped. Reload this page to join again.");
  });
}

function sendBlock(frame, samples) {
  if (!seated || !socket || socket.readyState !== WebSocket.OPEN) return;
  if (socket.bufferedAmount > 256 * 1024) return;  // the network is stalled: the host notices the gap
  const out = new ArrayBuffer(16 + samples.length * 2);
  const head = new DataView(out);
  head.setUint32(0, AUDIO, true);
  head.setUint32(4, seq++, true);
  head.setFloat64(8, frame, true);
  const pcm = new Int16Array(out, 16);
  for (let i = 0; i < samples.length; i++) {
    const x = Math.max(-1, Math.min(1, samples[i]));
    pcm[i] = x < 0 ? x * 32768 : x * 32767;
  }
  socket.send(out);
}

function playSpeech(data) {
  const head = new DataView(data);
  const id = head.getUint32(4, true), rate = head.getUint32(8, true);
  const pcm = new Int16Array(data, 16);
  const buffer = ctx.createBuffer(1, Math.max(1, pcm.length), rate);
  const channel = buffer.getChannelData(0);
  for (let i = 0; i < pcm.length; i++) channel[i] = pcm[i] / 32768;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  source.connect(ctx.destination);
  playing.add(source);
  source.onended = () => playing.delete(source);
  const start = ctx.currentTime + 0.05;
  source.start(start);
  window.voicehost.played.push({ id: id, samples: pcm.length });
  send({ type: "played", id: id, samples: pcm.length, start: start, end: start + buffer.duration });
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(scheme + "//" + location.host + "/ws");
  socket.binaryType = "arraybuffer";
  socket.onopen = () => send({ type: "join", name: myName, rate: ctx.sampleRate, agent: navigator.userAgent });
  socket.onmessage = (event) => {
    if (typeof event.data !== "string") {
      if (new DataView(event.data).getUint32(0, true) === SPEECH) playSpeech(event.data);
      return;
    }
    const message = JSON.parse(event.data);
    if (message.type === "ping") {
      const remote = contextNow();
      if (remote !== null) send({ type: "pong", id: message.id, remote: remote });
    } else if (message.type === "seated") {
      seated = true;
      $("join").hidden = true;
      $("seats").hidden = true;
      $("leave").hidden = false;
      status("You are seated as " + message.name + ". Your phone is your microphone now.");
      keepAwake();
    } else if (message.type === "refused") {
      seated = false;
      status(message.reason);
      offerSeats(message.free || []);
      socket.close();
    } else if (message.type === "line") {
      line(message.text, message.private);
    } else if (message.type === "hush") {
      playing.forEach((source) => source.stop());
      playing.clear();
    } else if (message.type === "status") {
      status(message.text);
    }
  };
  socket.onclose = () => {
    if (seated && !leaving) {
      seated = false;
      status("Connection to the host lost. Trying again.");
      setTimeout(connect, RETRY_MS);
    }
  };
}

function offerSeats(names) {
  const group = $("seats");
  group.querySelectorAll("button").forEach((b) => b.remove());
  names.forEach((name) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = name;
    button.onclick = () => { $("name").value = name; join(); };
    group.appendChild(button);
  });
  group.hidden = names.length === 0;
}

async function keepAwake() {
  try {
    if ("wakeLock" in navigator && !wakeLock) wakeLock = await navigator.wakeLock.request("screen");
  } catch (error) { /* not offered: the phone may sleep, and the host pauses the game */ }
}

async function join() {
  myName = $("name").value.trim();
  if (!myName) { status("Please type your name first."); $("name").focus(); return; }
  status("Starting the microphone.");
  try {
    await startAudio();
  } catch (error) {
    status("The microphone could not start: " + error.message +
           ". Allow the microphone for this page and try again.");
    return;
  }
  status("Joining as " + myName + ".");
  connect();
}

$("join").addEventListener("submit", (event) => { event.preventDefault(); join(); });
$("leave").addEventListener("click", () => {
  leaving = true; seated = false;
  if (socket) socket.close();
  if (ctx) ctx.close();
  status("You left the table. Reload the page to join again.");
  $("leave").hidden = true;
});
document.addEventListener("visibilitychange", () => { if (!document.hidden && seated) keepAwake(); });

const query = new URLSearchParams(location.search);
if (query.get("name")) {
  $("name").value = query.get("name");
  if (query.get("join") === "1") join();
}

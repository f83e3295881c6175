// AudioWorklet: copies the microphone's samples into blocks and posts each one with the
// audio-context frame of its first sample (the phone's audio clock). Nothing else happens here.
class Capture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.size = options.processorOptions.block;
    this.buffer = new Float32Array(this.size);
    this.fill = 0;
    this.first = 0;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i++) {
      if (this.fill === 0) this.first = currentFrame + i;
      this.buffer[this.fill++] = channel[i];
      if (this.fill === this.size) {
        this.port.postMessage({ frame: this.first, samples: this.buffer }, [this.buffer.buffer]);
        this.buffer = new Float32Array(this.size);
        this.fill = 0;
      }
    }
    return true;
  }
}
registerProcessor("voicehost-capture", Capture);

#version 450
// Beyond-4-GiB test: reads and then writes the words at three indices of a storage buffer
// larger than 4 GiB (through a descriptor: rewritten under indirect bindings), and reports
// the array's length.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Big { uint v[]; } big;
layout(set = 0, binding = 1) buffer Io { uint index[3]; uint read[3]; uint length_seen; } io;
void main() {
  for (int k = 0; k < 3; ++k) {
    uint i = io.index[k];
    io.read[k] = big.v[i];
    big.v[i] = 0xA000u + uint(k);
  }
  io.length_seen = uint(big.v.length());
}

package mp3

import "math"

// Polyphase synthesis filterbank (ISO/IEC 11172-3 2.4.3.2 / Annex A.2) with
// the 64-point matrixing done by a 32-point DCT-II and its symmetries.
//
// For one time slot the standard computes V[i] = sum_k cos((16+i)(2k+1)pi/64) S[k],
// i = 0..63. With X = DCT-II(S) (X[m] = sum_k S[k] cos(m(2k+1)pi/64)):
//
//	V[i] = X[i+16]   for i = 0..16   (X[32] = 0)
//	V[i] = -X[48-i]  for i = 17..47
//	V[i] = -X[i-48]  for i = 48..63
//
// and the output sample j of the slot is
//
//	out[j] = sum_{m=0..7} D[64m+j] V_{t-2m}[j] + D[64m+32+j] V_{t-2m-1}[32+j]
//
// where V_{t-k} is the V vector of the slot k steps back. Outputs j and 32-j
// read the same X values, so only the 32 X values of each slot are kept.

const synthHistSlots = 15

type synthState struct {
	// hist holds the X vectors of the last 15 slots followed by the 18 slots
	// of the granule being synthesised, oldest first.
	hist [(synthHistSlots + 18) * 32]float32
}

// Window coefficients rearranged per output pair, signs folded in:
// synthWinPair[j] = {D[64m+j] (m=0..7), -D[64m+32+j], -D[64m+32-j], -D[64m+64-j]}
var (
	synthWinPair [16][32]float32
	synthWin0    [16]float32 // out[0]: D[64m], -D[64m+32]
	synthWin16   [8]float32  // out[16]: -D[64m+48]
)

func init() {
	var d [512]float64
	for i, v := range synthWindowD {
		// The table holds integer multiples of 2^-16 printed to 9 decimals.
		d[i] = math.Round(float64(v)*65536) / 65536
	}
	for j := 1; j < 16; j++ {
		for m := 0; m < 8; m++ {
			synthWinPair[j][m] = float32(d[64*m+j])
			synthWinPair[j][8+m] = float32(-d[64*m+32+j])
			synthWinPair[j][16+m] = float32(-d[64*m+32-j])
			synthWinPair[j][24+m] = float32(-d[64*m+64-j])
		}
	}
	for m := 0; m < 8; m++ {
		synthWin0[m] = float32(d[64*m])
		synthWin0[8+m] = float32(-d[64*m+32])
		synthWin16[m] = float32(-d[64*m+48])
	}
}

// synthGranule turns the hybrid output of one granule (subband-major:
// in[18*sb+t]) into 576 PCM samples, clamped to [-1, 1] and written to
// out[stride*i+ch] (stride 1 or 2).
func (s *synthState) synthGranule(in *[576]float32, out []float32, ch, stride int) {
	for t := 0; t < 18; t++ {
		c := (synthHistSlots + t) * 32
		dct32((*[559]float32)(in[t:t+559]), (*[32]float32)(s.hist[c:c+32]))
		base := t*32*stride + ch
		s.synthSlot(t, out[base:base+31*stride+1], stride)
	}
	copy(s.hist[:synthHistSlots*32], s.hist[18*32:])
}

// synthSlot computes the 32 output samples of slot t, clamped, into
// o[step*j].
func (s *synthState) synthSlot(t int, o []float32, step int) {
	// h[k*32+i] is X_{t-15+k}[i]; the current slot is k = 15.
	h := (*[16 * 32]float32)(s.hist[t*32 : t*32+16*32])
	// Slots t-2m are k = 15-2m (odd k); slots t-2m-1 are k = 14-2m (even k).
	{
		w := &synthWin0
		a := w[0]*h[15*32+16] + w[1]*h[13*32+16] + w[2]*h[11*32+16] + w[3]*h[9*32+16] +
			w[4]*h[7*32+16] + w[5]*h[5*32+16] + w[6]*h[3*32+16] + w[7]*h[1*32+16]
		b := w[8]*h[14*32+16] + w[9]*h[12*32+16] + w[10]*h[10*32+16] + w[11]*h[8*32+16] +
			w[12]*h[6*32+16] + w[13]*h[4*32+16] + w[14]*h[2*32+16] + w[15]*h[0*32+16]
		o[0] = clamp(a + b)
		w16 := &synthWin16
		o[16*step] = clamp(w16[0]*h[14*32] + w16[1]*h[12*32] + w16[2]*h[10*32] + w16[3]*h[8*32] +
			w16[4]*h[6*32] + w16[5]*h[4*32] + w16[6]*h[2*32] + w16[7]*h[0*32])
	}
	for j := 1; j < 16; j++ {
		w := &synthWinPair[j]
		var s1, s2, s3, s4 float32
		a := h[15*32+16+j]
		b := h[14*32+16-j]
		s1 = w[0] * a
		s3 = w[16] * a
		s2 = w[8] * b
		s4 = w[24] * b
		a = h[13*32+16+j]
		b = h[12*32+16-j]
		s1 += w[1] * a
		s3 += w[17] * a
		s2 += w[9] * b
		s4 += w[25] * b
		a = h[11*32+16+j]
		b = h[10*32+16-j]
		s1 += w[2] * a
		s3 += w[18] * a
		s2 += w[10] * b
		s4 += w[26] * b
		a = h[9*32+16+j]
		b = h[8*32+16-j]
		s1 += w[3] * a
		s3 += w[19] * a
		s2 += w[11] * b
		s4 += w[27] * b
		a = h[7*32+16+j]
		b = h[6*32+16-j]
		s1 += w[4] * a
		s3 += w[20] * a
		s2 += w[12] * b
		s4 += w[28] * b
		a = h[5*32+16+j]
		b = h[4*32+16-j]
		s1 += w[5] * a
		s3 += w[21] * a
		s2 += w[13] * b
		s4 += w[29] * b
		a = h[3*32+16+j]
		b = h[2*32+16-j]
		s1 += w[6] * a
		s3 += w[22] * a
		s2 += w[14] * b
		s4 += w[30] * b
		a = h[1*32+16+j]
		b = h[0*32+16-j]
		s1 += w[7] * a
		s3 += w[23] * a
		s2 += w[15] * b
		s4 += w[31] * b
		o[j*step] = clamp(s1 + s2)
		o[(32-j)*step] = clamp(s3 + s4)
	}
}

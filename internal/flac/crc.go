package flac

// CRC-8 (polynomial x^8 + x^2 + x + 1) protects frame headers and CRC-16
// (polynomial x^16 + x^15 + x^2 + 1) protects whole frames. Both start at
// zero, process bits most significant first and are not reflected.

var crc8Table [256]uint8

// crc16Tables[k][b] is the CRC-16 contribution of byte b followed by k zero
// bytes, for slicing-by-8.
var crc16Tables [8][256]uint16

func init() {
	for i := range 256 {
		c8 := uint8(i)
		for range 8 {
			if c8&0x80 != 0 {
				c8 = c8<<1 ^ 0x07
			} else {
				c8 <<= 1
			}
		}
		crc8Table[i] = c8

		c16 := uint16(i) << 8
		for range 8 {
			if c16&0x8000 != 0 {
				c16 = c16<<1 ^ 0x8005
			} else {
				c16 <<= 1
			}
		}
		crc16Tables[0][i] = c16
	}
	for k := 1; k < 8; k++ {
		for i := range 256 {
			prev := crc16Tables[k-1][i]
			crc16Tables[k][i] = prev<<8 ^ crc16Tables[0][prev>>8]
		}
	}
}

func crc8(crc uint8, p []byte) uint8 {
	for _, b := range p {
		crc = crc8Table[crc^b]
	}
	return crc
}

// crc16 updates crc with p, eight bytes at a time where it can.
func crc16(crc uint16, p []byte) uint16 {
	t := &crc16Tables
	for len(p) >= 8 {
		q := p[:8]
		crc = t[7][byte(crc>>8)^q[0]] ^ t[6][byte(crc)^q[1]] ^
			t[5][q[2]] ^ t[4][q[3]] ^ t[3][q[4]] ^ t[2][q[5]] ^ t[1][q[6]] ^ t[0][q[7]]
		p = p[8:]
	}
	for _, b := range p {
		crc = crc<<8 ^ t[0][byte(crc>>8)^b]
	}
	return crc
}

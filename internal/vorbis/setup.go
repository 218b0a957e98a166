package vorbis

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
)

var errEOPHeader = errors.New("header packet is truncated")

type floorConf struct {
	typ int
	f0  *floor0
	f1  *floor1
}

type floor0 struct {
	order           int
	rate            int
	barkMapSize     int
	amplitudeBits   uint
	amplitudeOffset int
	books           []int
	maps            [2][]int32 // bark map for each block size (lazily built)
}

type floor1 struct {
	partitionClass []int
	classDims      [16]int
	classSubBits   [16]uint
	classMaster    [16]int
	classSubBooks  [16][8]int // -1: none
	multiplier     int
	rangeBits      uint
	xList          []int // floor1 values' X coordinates
	sorted         []int // indices of xList in increasing X order
	low, high      []int // neighbour indices for i >= 2
}

type residueConf struct {
	typ             int
	begin, end      int
	partitionSize   int
	classifications int
	classBook       int
	books           [][8]int // -1: none
	maxPass         int
	evenDims        bool // all its VQ books have an even number of dimensions
}

type mappingConf struct {
	magnitude, angle []int
	mux              []int
	submapFloor      []int
	submapResidue    []int
}

type modeConf struct {
	blockFlag int
	mapping   int
}

// parseIdent parses the identification header (packet type 1).
func (d *Decoder) parseIdent(p []byte) error {
	if len(p) < 30 || p[0] != 1 || string(p[1:7]) != "vorbis" {
		return errors.New("vorbis: first packet is not a Vorbis identification header")
	}
	if v := binary.LittleEndian.Uint32(p[7:]); v != 0 {
		return fmt.Errorf("vorbis: unsupported Vorbis version %d", v)
	}
	d.channels = int(p[11])
	d.sampleRate = int(binary.LittleEndian.Uint32(p[12:]))
	b0, b1 := uint(p[28]&15), uint(p[28]>>4)
	if d.channels == 0 {
		return errors.New("vorbis: identification header: zero channels")
	}
	if d.sampleRate == 0 || d.sampleRate > math.MaxInt32 {
		return errors.New("vorbis: identification header: invalid sample rate")
	}
	if b0 < 6 || b1 > 13 || b0 > b1 {
		return fmt.Errorf("vorbis: identification header: invalid block sizes %d/%d", 1<<b0, 1<<b1)
	}
	if p[29]&1 == 0 {
		return errors.New("vorbis: identification header: framing bit not set")
	}
	d.blockSize = [2]int{1 << b0, 1 << b1}
	return nil
}

// parseComment parses the comment header (packet type 3).
func (d *Decoder) parseComment(p []byte) error {
	if len(p) < 7 || p[0] != 3 || string(p[1:7]) != "vorbis" {
		return errors.New("vorbis: second packet is not a Vorbis comment header")
	}
	p = p[7:]
	bad := errors.New("vorbis: comment header is truncated")
	if len(p) < 4 {
		return bad
	}
	vl := uint64(binary.LittleEndian.Uint32(p))
	p = p[4:]
	if vl > uint64(len(p)) {
		return bad
	}
	d.vendor = string(p[:vl])
	p = p[vl:]
	if len(p) < 4 {
		return bad
	}
	n := uint64(binary.LittleEndian.Uint32(p))
	p = p[4:]
	if n > uint64(len(p)/4) {
		return bad
	}
	if n > 0 {
		d.comments = make([]string, 0, n)
	}
	for i := uint64(0); i < n; i++ {
		if len(p) < 4 {
			return bad
		}
		l := uint64(binary.LittleEndian.Uint32(p))
		p = p[4:]
		if l > uint64(len(p)) {
			return bad
		}
		d.comments = append(d.comments, string(p[:l]))
		p = p[l:]
	}
	// The framing bit is not checked: some encoders omit it.
	return nil
}

// parseSetup parses the setup header (packet type 5).
func (d *Decoder) parseSetup(p []byte) (err error) {
	if len(p) < 7 || p[0] != 5 || string(p[1:7]) != "vorbis" {
		return errors.New("vorbis: third packet is not a Vorbis setup header")
	}
	var br bitReader
	br.init(p[7:])
	wrap := func(what string, e error) error {
		return fmt.Errorf("vorbis: setup header: %s: %w", what, e)
	}

	// Codebooks.
	budget := codebookBudget
	n := int(br.read(8)) + 1
	d.books = make([]*codebook, n)
	for i := range d.books {
		c, err := readCodebook(&br, &budget)
		if err != nil {
			return wrap(fmt.Sprintf("codebook %d", i), err)
		}
		d.books[i] = c
	}

	// Time domain transforms (placeholders).
	n = int(br.read(6)) + 1
	for i := 0; i < n; i++ {
		if br.read(16) != 0 {
			return wrap("time domain transforms", errors.New("nonzero transform type"))
		}
	}

	// Floors.
	n = int(br.read(6)) + 1
	d.floors = make([]floorConf, n)
	for i := range d.floors {
		t := int(br.read(16))
		var err error
		switch t {
		case 0:
			d.floors[i].f0, err = d.readFloor0(&br)
		case 1:
			d.floors[i].f1, err = d.readFloor1(&br)
		default:
			err = fmt.Errorf("unknown floor type %d", t)
		}
		if err == nil && br.pastEnd() {
			err = errEOPHeader
		}
		if err != nil {
			return wrap(fmt.Sprintf("floor %d", i), err)
		}
		d.floors[i].typ = t
	}

	// Residues.
	n = int(br.read(6)) + 1
	d.residues = make([]residueConf, n)
	for i := range d.residues {
		if err := d.readResidue(&br, &d.residues[i]); err != nil {
			return wrap(fmt.Sprintf("residue %d", i), err)
		}
	}

	// Mappings.
	n = int(br.read(6)) + 1
	d.mappings = make([]mappingConf, n)
	for i := range d.mappings {
		if err := d.readMapping(&br, &d.mappings[i]); err != nil {
			return wrap(fmt.Sprintf("mapping %d", i), err)
		}
	}

	// Modes.
	n = int(br.read(6)) + 1
	d.modes = make([]modeConf, n)
	for i := range d.modes {
		m := &d.modes[i]
		m.blockFlag = int(br.read(1))
		wt := br.read(16)
		tt := br.read(16)
		m.mapping = int(br.read(8))
		if br.pastEnd() {
			return wrap("modes", errEOPHeader)
		}
		if wt != 0 || tt != 0 {
			return wrap(fmt.Sprintf("mode %d", i), errors.New("nonzero window or transform type"))
		}
		if m.mapping >= len(d.mappings) {
			return wrap(fmt.Sprintf("mode %d", i), errors.New("mapping number out of range"))
		}
	}
	d.modeBits = ilog(uint32(len(d.modes) - 1))
	if !br.read1() || br.pastEnd() {
		return wrap("end", errors.New("framing bit not set"))
	}
	return nil
}

func (d *Decoder) checkBook(b int) error {
	if b < 0 || b >= len(d.books) {
		return fmt.Errorf("codebook number %d out of range", b)
	}
	return nil
}

func (d *Decoder) readFloor0(br *bitReader) (*floor0, error) {
	f := &floor0{}
	f.order = int(br.read(8))
	f.rate = int(br.read(16))
	f.barkMapSize = int(br.read(16))
	f.amplitudeBits = uint(br.read(6))
	f.amplitudeOffset = int(br.read(8))
	nb := int(br.read(4)) + 1
	f.books = make([]int, nb)
	for i := range f.books {
		f.books[i] = int(br.read(8))
		if err := d.checkBook(f.books[i]); err != nil {
			return nil, err
		}
		if d.books[f.books[i]].values == nil {
			return nil, errors.New("floor 0 book has no vector values")
		}
	}
	if f.order < 1 || f.rate < 1 || f.barkMapSize < 1 {
		return nil, errors.New("invalid floor 0 parameters")
	}
	return f, nil
}

func (d *Decoder) readFloor1(br *bitReader) (*floor1, error) {
	f := &floor1{}
	np := int(br.read(5))
	f.partitionClass = make([]int, np)
	maxClass := -1
	for i := range f.partitionClass {
		c := int(br.read(4))
		f.partitionClass[i] = c
		if c > maxClass {
			maxClass = c
		}
	}
	for c := 0; c <= maxClass; c++ {
		f.classDims[c] = int(br.read(3)) + 1
		f.classSubBits[c] = uint(br.read(2))
		if f.classSubBits[c] != 0 {
			f.classMaster[c] = int(br.read(8))
			if err := d.checkBook(f.classMaster[c]); err != nil {
				return nil, err
			}
		}
		for j := 0; j < 1<<f.classSubBits[c]; j++ {
			b := int(br.read(8)) - 1
			if b >= 0 {
				if err := d.checkBook(b); err != nil {
					return nil, err
				}
			}
			f.classSubBooks[c][j] = b
		}
	}
	f.multiplier = int(br.read(2)) + 1
	f.rangeBits = uint(br.read(4))
	f.xList = []int{0, 1 << f.rangeBits}
	for _, c := range f.partitionClass {
		for j := 0; j < f.classDims[c]; j++ {
			f.xList = append(f.xList, int(br.read(f.rangeBits)))
		}
	}
	if br.pastEnd() {
		return nil, errEOPHeader
	}
	nv := len(f.xList)
	f.sorted = make([]int, nv)
	for i := range f.sorted {
		f.sorted[i] = i
	}
	sort.SliceStable(f.sorted, func(a, b int) bool { return f.xList[f.sorted[a]] < f.xList[f.sorted[b]] })
	for i := 1; i < nv; i++ {
		if f.xList[f.sorted[i]] == f.xList[f.sorted[i-1]] {
			return nil, errors.New("floor 1 has duplicate X values")
		}
	}
	f.low = make([]int, nv)
	f.high = make([]int, nv)
	for i := 2; i < nv; i++ {
		lo, hi := 0, 1
		lx, hx := -1, 1<<30
		for j := 0; j < i; j++ {
			x := f.xList[j]
			if x < f.xList[i] && x > lx {
				lo, lx = j, x
			}
			if x > f.xList[i] && x < hx {
				hi, hx = j, x
			}
		}
		f.low[i], f.high[i] = lo, hi
	}
	if nv > d.maxFloorValues {
		d.maxFloorValues = nv
	}
	return f, nil
}

func (d *Decoder) readResidue(br *bitReader, r *residueConf) error {
	r.typ = int(br.read(16))
	if r.typ > 2 {
		return fmt.Errorf("unknown residue type %d", r.typ)
	}
	r.begin = int(br.read(24))
	r.end = int(br.read(24))
	r.partitionSize = int(br.read(24)) + 1
	r.classifications = int(br.read(6)) + 1
	r.classBook = int(br.read(8))
	if err := d.checkBook(r.classBook); err != nil {
		return err
	}
	cascade := make([]uint32, r.classifications)
	for i := range cascade {
		lo := br.read(3)
		var hi uint32
		if br.read1() {
			hi = br.read(5)
		}
		cascade[i] = hi<<3 | lo
	}
	r.books = make([][8]int, r.classifications)
	for i := range r.books {
		for j := 0; j < 8; j++ {
			r.books[i][j] = -1
			if cascade[i]&(1<<uint(j)) != 0 {
				b := int(br.read(8))
				if err := d.checkBook(b); err != nil {
					return err
				}
				r.books[i][j] = b
				if j+1 > r.maxPass {
					r.maxPass = j + 1
				}
			}
		}
	}
	if br.pastEnd() {
		return errEOPHeader
	}
	r.evenDims = true
	for _, bs := range r.books {
		for _, b := range bs {
			if b >= 0 && d.books[b].dims%2 != 0 {
				r.evenDims = false
			}
		}
	}
	return nil
}

func (d *Decoder) readMapping(br *bitReader, m *mappingConf) error {
	if t := br.read(16); t != 0 {
		return fmt.Errorf("unknown mapping type %d", t)
	}
	submaps := 1
	if br.read1() {
		submaps = int(br.read(4)) + 1
	}
	if br.read1() {
		steps := int(br.read(8)) + 1
		bitsCh := ilog(uint32(d.channels - 1))
		m.magnitude = make([]int, steps)
		m.angle = make([]int, steps)
		for i := 0; i < steps; i++ {
			m.magnitude[i] = int(br.read(bitsCh))
			m.angle[i] = int(br.read(bitsCh))
			if m.magnitude[i] == m.angle[i] || m.magnitude[i] >= d.channels || m.angle[i] >= d.channels {
				return errors.New("invalid channel coupling")
			}
		}
	}
	if br.read(2) != 0 {
		return errors.New("reserved field is nonzero")
	}
	m.mux = make([]int, d.channels)
	if submaps > 1 {
		for i := range m.mux {
			m.mux[i] = int(br.read(4))
			if m.mux[i] >= submaps {
				return errors.New("submap number out of range")
			}
		}
	}
	m.submapFloor = make([]int, submaps)
	m.submapResidue = make([]int, submaps)
	for i := 0; i < submaps; i++ {
		br.read(8)
		m.submapFloor[i] = int(br.read(8))
		m.submapResidue[i] = int(br.read(8))
		if m.submapFloor[i] >= len(d.floors) {
			return errors.New("floor number out of range")
		}
		if m.submapResidue[i] >= len(d.residues) {
			return errors.New("residue number out of range")
		}
	}
	if br.pastEnd() {
		return errEOPHeader
	}
	return nil
}

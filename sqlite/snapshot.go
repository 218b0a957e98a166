package sqlite

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/foley-audio/foley/internal/vecindex"
)

// The vector snapshot (PATH.vectors) holds every vector of a library and
// the fields filters test, as of one change number, in one sequential file.
// Loading it is a read at disk speed, where decoding the same vectors out of
// SQLite takes many times longer; changes made after it are applied from
// the database as usual. Layout, little-endian:
//
//	"FOLEYVS1" dim:u32 modelLen:u32 model seq:i64 count:u64
//	count × (key:i64 duration:f32 commercial:u8 licLen:u16 lic ucsLen:u16 ucs dim×f32)
//	crc32(IEEE, everything before):u32
const snapshotMagic = "FOLEYVS1"

// snapshotMin is the library size from which SaveIndex writes a snapshot.
const snapshotMin = 10_000

// writeSnapshot writes the state's vectors atomically; s.mu is held.
func (s *vectorState) writeSnapshot() error {
	tmp, err := os.CreateTemp(filepath.Dir(s.snapPath), filepath.Base(s.snapPath)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	crc := crc32.NewIEEE()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<20)
	var b [8]byte
	put32 := func(v uint32) { binary.LittleEndian.PutUint32(b[:4], v); w.Write(b[:4]) }
	put64 := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); w.Write(b[:]) }
	putStr := func(v string) {
		binary.LittleEndian.PutUint16(b[:2], uint16(min(len(v), math.MaxUint16)))
		w.Write(b[:2])
		w.WriteString(v[:min(len(v), math.MaxUint16)])
	}
	w.WriteString(snapshotMagic)
	put32(uint32(s.dim))
	put32(uint32(len(s.model)))
	w.WriteString(s.model)
	put64(uint64(s.seq))
	put64(uint64(s.store.Len()))
	raw := make([]byte, 4*s.dim)
	s.store.Each(func(key int64, v []float32) bool {
		a := s.attrs[key]
		put64(uint64(key))
		put32(math.Float32bits(a.duration))
		if a.commercial {
			w.WriteByte(1)
		} else {
			w.WriteByte(0)
		}
		putStr(a.license)
		putStr(a.ucs)
		for j, x := range v {
			binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(x))
		}
		w.Write(raw)
		return true
	})
	if err := w.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(b[:4], crc.Sum32())
	if _, err := tmp.Write(b[:4]); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.snapPath)
}

var errNoSnapshot = errors.New("no usable vector snapshot")

// readSnapshot fills a new store from the snapshot when it is for this model
// and dimension and no newer than seq. It returns the snapshot's change
// number. Any problem with the file is errNoSnapshot (wrapped): the caller
// loads from the database instead.
func (s *vectorState) readSnapshot(model string, dim int, seq int64) (int64, *vecindex.Store, map[int64]attrs, error) {
	f, err := os.Open(s.snapPath)
	if err != nil {
		return 0, nil, nil, errNoSnapshot
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() < 4 {
		return 0, nil, nil, errNoSnapshot
	}
	crc := crc32.NewIEEE()
	r := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, st.Size()-4), crc), 1<<20)
	bad := func(what string) (int64, *vecindex.Store, map[int64]attrs, error) {
		return 0, nil, nil, fmt.Errorf("%w: %s", errNoSnapshot, what)
	}
	var b [8]byte
	get := func(n int) []byte {
		if _, err := io.ReadFull(r, b[:n]); err != nil {
			return nil
		}
		return b[:n]
	}
	getStr := func() (string, bool) {
		n := get(2)
		if n == nil {
			return "", false
		}
		buf := make([]byte, binary.LittleEndian.Uint16(n))
		_, err := io.ReadFull(r, buf)
		return string(buf), err == nil
	}
	if m := get(8); m == nil || string(m) != snapshotMagic {
		return bad("magic")
	}
	h := get(8)
	if h == nil || int(binary.LittleEndian.Uint32(h)) != dim || int(binary.LittleEndian.Uint32(h[4:])) != len(model) {
		return bad("dimension or model")
	}
	mb := make([]byte, len(model))
	if _, err := io.ReadFull(r, mb); err != nil || string(mb) != model {
		return bad("model")
	}
	h = get(8)
	if h == nil {
		return bad("header")
	}
	snapSeq := int64(binary.LittleEndian.Uint64(h))
	h = get(8)
	if h == nil || snapSeq > seq || snapSeq < 0 {
		return bad("change number")
	}
	count := binary.LittleEndian.Uint64(h)
	if count > uint64(st.Size())/uint64(4*dim+17) {
		return bad("count")
	}
	store := vecindex.NewStore(dim)
	at := make(map[int64]attrs, count)
	const batch = 4096
	keys := make([]int64, 0, batch)
	flat := make([]float32, batch*dim)
	vecs := make([][]float32, 0, batch)
	raw := make([]byte, 4*dim)
	flush := func() error {
		err := store.AddBatch(keys, vecs)
		keys, vecs = keys[:0], vecs[:0]
		return err
	}
	for i := uint64(0); i < count; i++ {
		h := get(8)
		if h == nil {
			return bad("truncated")
		}
		key := int64(binary.LittleEndian.Uint64(h))
		h = get(5)
		if h == nil {
			return bad("truncated")
		}
		a := attrs{duration: math.Float32frombits(binary.LittleEndian.Uint32(h)), commercial: h[4] == 1}
		var ok1, ok2 bool
		a.license, ok1 = getStr()
		a.ucs, ok2 = getStr()
		if _, err := io.ReadFull(r, raw); err != nil || !ok1 || !ok2 {
			return bad("truncated")
		}
		v := flat[len(vecs)*dim : (len(vecs)+1)*dim]
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
		keys, vecs = append(keys, key), append(vecs, v)
		at[key] = a
		if len(keys) == batch {
			if err := flush(); err != nil {
				return bad(err.Error())
			}
		}
	}
	if err := flush(); err != nil {
		return bad(err.Error())
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return bad("trailing data")
	}
	var sum [4]byte
	if _, err := f.ReadAt(sum[:], st.Size()-4); err != nil || binary.LittleEndian.Uint32(sum[:]) != crc.Sum32() {
		return bad("checksum")
	}
	return snapSeq, store, at, nil
}

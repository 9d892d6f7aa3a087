//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go

package floor

/*
#include <stdlib.h>
#include <crio_pin.h>

// What a call into C costs with nothing on the other side: the arguments
// and attributes of the package's crio_pin_match.
static void floor_empty(const char *name, size_t length) { (void)name; (void)length; }

// count images from image `from` on (wrapping), each answered as the
// package answers an image: crio_pin_match for one name, else
// crio_pin_match_any of its names packed. Image i's names are
// lengths[first[i]..first[i+1]), its bytes from data + at[i]. Each call
// waits for the answer before the next (the next image's index depends
// on it, as far as the processor knows), as a call from Go does: a loop
// whose calls overlap would measure less than one call costs.
static size_t floor_match_images(const crio_pin_set *set, const char *data, const size_t *lengths,
        const size_t *first, const size_t *at, size_t images, size_t from, size_t count) {
	size_t pinned = 0;
	size_t i = from;
	for (size_t k = 0; k < count; k++) {
		size_t n = first[i + 1] - first[i];
		const char *p = data + at[i];
		size_t r = n == 1 ? crio_pin_match(set, p, lengths[first[i]])
		                  : crio_pin_match_any(set, p, lengths + first[i], n);
		pinned += r;
		__asm__ volatile("" : "+r"(i) : "r"(r));
		if (++i == images) {
			i = 0;
		}
	}
	return pinned;
}

// The patterns, packed as the images are, compiled with default flags.
static crio_pin_set *floor_compile(const char *data, const size_t *lengths, size_t count) {
	const char **texts = malloc((count ? count : 1) * sizeof *texts);
	if (texts == NULL) {
		return NULL;
	}
	size_t at = 0;
	for (size_t i = 0; i < count; i++) {
		texts[i] = data + at;
		at += lengths[i];
	}
	crio_pin_error *err = NULL;
	crio_pin_set *set = crio_pin_compile(texts, lengths, count, CRIO_PIN_DEFAULT, &err);
	free(texts);
	crio_pin_error_free(err);
	return set;
}

#cgo noescape floor_empty
#cgo nocallback floor_empty
#cgo nocallback floor_match_images
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// Empty makes one empty cgo call with name as its argument.
func Empty(name string) {
	C.floor_empty((*C.char)(unsafe.Pointer(unsafe.StringData(name))), C.size_t(len(name)))
}

// Images is a list compiled by the library and a node's images, packed in
// C memory, to be answered from C.
type Images struct {
	set     *C.crio_pin_set
	data    *C.char
	lengths *C.size_t
	first   *C.size_t
	at      *C.size_t
	count   int
}

// NewImages compiles patterns (default flags) and packs images, each the
// names of one image.
func NewImages(patterns []string, images [][]string) (*Images, error) {
	pdata, plens := pack(patterns)
	set := C.floor_compile(pdata, plens, C.size_t(len(patterns)))
	C.free(unsafe.Pointer(pdata))
	C.free(unsafe.Pointer(plens))
	if set == nil {
		return nil, errors.New("floor: the library does not compile the list")
	}
	var names []string
	first := []int{0}
	at := []int{0}
	bytes := 0
	for _, image := range images {
		for _, n := range image {
			bytes += len(n)
		}
		names = append(names, image...)
		first = append(first, len(names))
		at = append(at, bytes)
	}
	m := &Images{set: set, count: len(images)}
	m.data, m.lengths = pack(names)
	m.first, m.at = sizes(first), sizes(at)
	return m, nil
}

// Match answers count images from image from on, in one cgo call, and
// returns how many are pinned.
func (m *Images) Match(from, count int) int {
	r := C.floor_match_images(m.set, m.data, m.lengths, m.first, m.at, C.size_t(m.count), C.size_t(from%m.count), C.size_t(count))
	runtime.KeepAlive(m)
	return int(r)
}

// Close frees the set and the packed images.
func (m *Images) Close() {
	C.crio_pin_free(m.set)
	for _, p := range []unsafe.Pointer{unsafe.Pointer(m.data), unsafe.Pointer(m.lengths), unsafe.Pointer(m.first), unsafe.Pointer(m.at)} {
		C.free(p)
	}
	*m = Images{}
}

// pack copies texts back to back into C memory, with their lengths.
func pack(texts []string) (*C.char, *C.size_t) {
	total := 1
	for _, t := range texts {
		total += len(t)
	}
	data := C.malloc(C.size_t(total))
	buf := unsafe.Slice((*byte)(data), total)
	at := 0
	lengths := make([]int, len(texts))
	for i, t := range texts {
		at += copy(buf[at:], t)
		lengths[i] = len(t)
	}
	return (*C.char)(data), sizes(lengths)
}

// sizes copies values into a C array of size_t.
func sizes(values []int) *C.size_t {
	p := C.malloc(C.size_t(max(len(values), 1)) * C.size_t(unsafe.Sizeof(C.size_t(0))))
	out := unsafe.Slice((*C.size_t)(p), max(len(values), 1))
	for i, v := range values {
		out[i] = C.size_t(v)
	}
	return (*C.size_t)(p)
}

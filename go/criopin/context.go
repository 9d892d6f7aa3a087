package criopin

import (
	"context"
	"sync/atomic"
)

// One list per request: a snapshot of a Live carried by a context.
//
// CRI-O answers one ListImages from two stores, in two calls: the image
// service (storage images) and then the artifact store, each asking the
// same Live. A reload between the two calls would answer the images from
// one list and the artifacts from another. The request's handler takes a
// snapshot once, into the request's context, and every consumer reads the
// Live through that context: the whole answer comes from one list.

// snapshotKey is the context key of a snapshot of l: each Live has its
// own, so one context may carry snapshots of several Lives.
type snapshotKey struct{ l *Live }

// snapshot is the list a Live held when WithSnapshot was called.
type snapshot struct {
	set      *Set // owned by the snapshot; nil when the Live held no list
	released atomic.Bool
}

// release gives the snapshot's list up, once.
func (s *snapshot) release() {
	if s.released.CompareAndSwap(false, true) {
		s.set.Close()
	}
}

// WithSnapshot returns a copy of ctx that carries the list l holds now,
// and release, which gives that list up. Every reader that asks l
// through the returned context, with l.From(ctx), is answered by that
// one list whatever reloads happen meanwhile, so one request read by
// several consumers (ListImages: the image service, then the artifact
// store) is answered from one list:
//
//	ctx, release := pinned.WithSnapshot(ctx)
//	defer release()
//	images := imageService.List(ctx)     // each asks pinned.From(ctx)
//	artifacts := artifactStore.List(ctx) // the same list, even across a reload
//
// Ownership: the caller of WithSnapshot owns the snapshot and calls
// release (deferred, as with context.WithCancel) once the request is
// answered; release is idempotent and safe from any goroutine. The
// snapshot is another reference to the compiled list, not a copy (see
// [Live.Snapshot]); a reload does not wait for it, and the replaced list
// is freed when its last snapshot is released. Readers own nothing.
//
// A context used after release reads l's current list, as a context
// without a snapshot does: never a panic, never "not pinned" for want of
// a list.
//
// If ctx already carries a snapshot of l that is not released,
// WithSnapshot returns ctx itself and a release that does nothing: the
// outermost snapshot answers the whole request. When l holds no list the
// snapshot is the empty list (a reload meanwhile does not change it). On
// a nil l it returns ctx and a release that does nothing (a nil *Live
// reads as the empty set, with or without a snapshot).
//
// WithSnapshot, From and the View's methods are safe for any number of
// goroutines, also while the Live is reloaded.
//
// Cost: a context value and a reference to the list (a few allocations,
// one atomic add), once per request.
func (l *Live) WithSnapshot(ctx context.Context) (context.Context, func()) {
	if l == nil {
		return ctx, func() {}
	}
	key := snapshotKey{l}
	if outer, ok := ctx.Value(key).(*snapshot); ok && !outer.released.Load() {
		return ctx, func() {}
	}
	snap := &snapshot{set: l.Snapshot()}
	return context.WithValue(ctx, key, snap), snap.release
}

// From returns the reader of l for ctx: it answers from the snapshot of l
// that ctx carries ([Live.WithSnapshot]) while it is held, and otherwise,
// like l's own methods, from l's current list at each call. A consumer
// that serves requests calls l.From(ctx) where it would call l's methods;
// without a snapshot in ctx nothing changes. ctx may be nil (no snapshot).
//
// Cost: a lookup in ctx (ctx.Value); take the View once per request, not
// once per name.
func (l *Live) From(ctx context.Context) View {
	v := View{live: l}
	if l != nil && ctx != nil {
		v.snap, _ = ctx.Value(snapshotKey{l}).(*snapshot)
	}
	return v
}

// View answers for a Live in one context: from the snapshot the context
// carries (see [Live.WithSnapshot]), or else from the Live's current list
// call by call, as the Live's own methods do. Get one with [Live.From].
//
// A View owns nothing (there is nothing to Close), is a small value to
// pass around, and is safe for any number of goroutines. Its answers come
// from the snapshot while the snapshot is held; after its release, from
// the Live's current list. The zero View, and a View of a nil *Live, read
// as the empty set.
type View struct {
	live *Live
	snap *snapshot // nil: no snapshot in the context
}

// acquire returns the set to answer with, with a call registered on it
// (release it), or nil for the empty set.
func (v View) acquire() *Set {
	if s := v.snap; s != nil && !s.released.Load() {
		if s.set == nil {
			return nil // the Live held no list when the snapshot was taken
		}
		if s.set.tryAcquire() {
			return s.set
		}
		// Released meanwhile: as without a snapshot.
	}
	return v.live.acquire()
}

// Snapshotted reports whether v answers from a snapshot (one list for
// the whole request) rather than from the Live's current list.
func (v View) Snapshotted() bool {
	return v.snap != nil && !v.snap.released.Load()
}

// Match reports whether name is pinned. See [Set.Match].
func (v View) Match(name string) bool {
	a := v.acquire()
	r := a.matcher().match(name)
	a.release()
	return r
}

// MatchIndex returns the index of the first pattern that matches name, or
// -1. See [Set.MatchIndex].
func (v View) MatchIndex(name string) int {
	a := v.acquire()
	r := a.matcher().matchIndex(name)
	a.release()
	return r
}

// MatchAny reports whether any of names is pinned. See [Set.MatchAny].
func (v View) MatchAny(names ...string) bool {
	a := v.acquire()
	r := a.matcher().matchAny(names)
	a.release()
	return r
}

// MatchEach reports for each name whether it is pinned. See
// [Set.MatchEach].
func (v View) MatchEach(names []string) []bool {
	return v.AppendEach(make([]bool, 0, len(names)), names)
}

// AppendEach appends, for each name, whether it is pinned. See
// [Set.AppendEach].
func (v View) AppendEach(dst []bool, names []string) []bool {
	return appendEach(v.acquire(), dst, names)
}

// Len returns the number of patterns of the list v answers from.
func (v View) Len() int {
	a := v.acquire()
	n := a.length()
	a.release()
	return n
}

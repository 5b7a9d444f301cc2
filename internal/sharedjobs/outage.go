package sharedjobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"mldr/internal/pgmeta"
	"mldr/internal/store"
)

// Outages of the database. The queue's own work (renewing the lease,
// taking back lost jobs, writing progress, listening, sweeping) retries
// by itself; its failures while the database cannot be reached are not
// logged, nor are River's, since the metadata store logs an outage once,
// when it begins and when it ends (pgmeta).

// outageQuiet is how long after the database is back River's warnings
// are still dropped: those of its retries that began during the outage.
const outageQuiet = 10 * time.Second

// outageCheck bounds the check, before River's warning is logged, that
// the database still answers.
const outageCheck = 3 * time.Second

// logFailure logs a failure of the queue's own work, unless the database
// could not be reached: the metadata store logs an outage once, when it
// begins and when it ends, not at every retry.
func (q *Queue) logFailure(msg string, err error, args ...any) {
	args = append(args, "err", err)
	if errors.Is(pgmeta.Classify(err), store.ErrUnavailable) || q.cfg.Meta.Check() != nil {
		q.cfg.Logger.Debug(msg, args...)
		return
	}
	q.cfg.Logger.Warn(msg, args...)
}

// quietOutage is River's log handler: River's warnings and errors are
// dropped while the database cannot be reached and for outageQuiet after.
// A warning that may be the first sign of an outage (River's listener
// learns of a shutdown before anyone) is logged only once the database is
// found still to answer.
type quietOutage struct {
	slog.Handler
	meta *pgmeta.Meta
}

// Handle drops a warning or an error during an outage, and passes on
// the rest.
func (h quietOutage) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		if !h.meta.Settled(outageQuiet) {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, outageCheck)
		err := h.meta.Ping(ctx)
		cancel()
		if errors.Is(err, store.ErrUnavailable) {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the handler quiet during outages.
func (h quietOutage) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietOutage{Handler: h.Handler.WithAttrs(attrs), meta: h.meta}
}

// WithGroup keeps the handler quiet during outages.
func (h quietOutage) WithGroup(name string) slog.Handler {
	return quietOutage{Handler: h.Handler.WithGroup(name), meta: h.meta}
}

package sharedjobs

import (
	"context"
	"errors"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/store"
)

// Subscribe returns a channel that receives the job's state on every
// change, whichever process made it (only the latest is kept if the
// reader is slow), closed when the job is deleted, and a function that
// ends the subscription. It needs Config.Listen.
func (q *Queue) Subscribe(id string) (<-chan jobs.Job, func(), error) {
	// Registered before the first read, and reads taken in turn with the
	// listener's, so that the last state sent is the newest.
	q.reads.Lock()
	defer q.reads.Unlock()
	ch := make(chan jobs.Job, 1)
	q.mu.Lock()
	if q.subs[id] == nil {
		q.subs[id] = map[chan jobs.Job]struct{}{}
	}
	q.subs[id][ch] = struct{}{}
	q.mu.Unlock()
	end := func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if _, ok := q.subs[id][ch]; ok {
			delete(q.subs[id], ch)
			if len(q.subs[id]) == 0 {
				delete(q.subs, id)
			}
			close(ch)
		}
	}
	j, err := q.Get(id)
	if err != nil {
		end()
		return nil, nil, err
	}
	q.send(j)
	return ch, end, nil
}

// send gives the subscribers of j.ID its state, replacing a state they
// have not read yet.
func (q *Queue) send(j jobs.Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for ch := range q.subs[j.ID] {
		select {
		case <-ch:
		default:
		}
		ch <- j
	}
}

// closeSubs ends the subscriptions of a deleted job.
func (q *Queue) closeSubs(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for ch := range q.subs[id] {
		close(ch)
	}
	delete(q.subs, id)
}

// subscribed reports whether job id has subscribers here.
func (q *Queue) subscribed(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.subs[id]) > 0
}

// refresh reads job id's record and gives it to its subscribers, or ends
// them if the job was deleted.
func (q *Queue) refresh(id string) {
	q.reads.Lock()
	defer q.reads.Unlock()
	j, err := q.Get(id)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		q.closeSubs(id)
	case err != nil:
		q.logFailure("reading a changed job", err, "id", id)
	default:
		q.send(j)
	}
}

// listenRetry is the pause before listening again after the connection
// was lost.
const listenRetry = time.Second

// listen LISTENs on NotifyChannel on a connection of its own until the
// queue stops, and refreshes the subscribers of each job announced.
// ready receives the first LISTEN's outcome. After a lost connection it
// listens again and refreshes every subscribed job, as changes may have
// been missed.
func (q *Queue) listen(ready chan<- error) {
	first := true
	for q.ctx.Err() == nil {
		err := q.listenOnce(func() {
			if first {
				first = false
				ready <- nil
			} else {
				q.mu.Lock()
				ids := make([]string, 0, len(q.subs))
				for id := range q.subs {
					ids = append(ids, id)
				}
				q.mu.Unlock()
				for _, id := range ids {
					q.refresh(id)
				}
			}
		})
		if q.ctx.Err() != nil {
			break
		}
		if first {
			ready <- err
			return
		}
		q.logFailure("listening for job changes: the connection was lost; listening again", err, "in", listenRetry)
		select {
		case <-q.ctx.Done():
		case <-time.After(listenRetry):
		}
	}
	if first {
		ready <- q.ctx.Err()
	}
}

// listenOnce listens on one connection until it fails or the queue
// stops; listening calls back once the LISTEN is in place.
func (q *Queue) listenOnce(listening func()) error {
	conn, err := q.pool.Acquire(q.ctx)
	if err != nil {
		return err
	}
	// The connection leaves the pool: it is LISTENing.
	pc := conn.Hijack()
	defer pc.Close(context.Background())
	if _, err := pc.Exec(q.ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	listening()
	for {
		n, err := pc.WaitForNotification(q.ctx)
		if err != nil {
			return err
		}
		if store.ValidID(n.Payload) && q.subscribed(n.Payload) {
			q.refresh(n.Payload)
		}
	}
}

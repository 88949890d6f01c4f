package engine

import (
	"encoding/json"
	"slices"

	"github.com/switchboard-hub/switchboard/hub"
)

// An imported question (elicitation) is history, like an imported
// permission: no agent waits for its answer. Its events get a new id, no
// elicitation record is stored (so none can be answered: AnswerElicitation
// finds nothing), and one the file left pending is resolved — cancelled
// by the hub — at the end of its thread, so no surface shows it as open.

// renameElicitation gives the question an elicitation event names its
// new id (everywhere the payload names it); other events are returned
// as they are.
func (im *fileImporter) renameElicitation(typ string, p json.RawMessage) json.RawMessage {
	if typ != hub.EventElicitationRequired && typ != hub.EventElicitationResolved {
		return p
	}
	var pe struct {
		Elicitation struct {
			ID string `json:"id"`
		} `json:"elicitation"`
	}
	if json.Unmarshal(p, &pe) != nil || pe.Elicitation.ID == "" {
		return p
	}
	id, ok := im.elicits[pe.Elicitation.ID]
	if !ok {
		id = newID("el")
		im.elicits[pe.Elicitation.ID] = id
	}
	return replaceID(p, pe.Elicitation.ID, id)
}

// trackElicitation notes the questions the thread's events leave pending
// (ev is already renamed).
func (im *fileImporter) trackElicitation(ev hub.Event) {
	if ev.Type != hub.EventElicitationRequired && ev.Type != hub.EventElicitationResolved {
		return
	}
	var pe struct {
		Elicitation *hub.Elicitation `json:"elicitation"`
	}
	if json.Unmarshal(ev.Payload, &pe) != nil || pe.Elicitation == nil || pe.Elicitation.ID == "" {
		return
	}
	if pe.Elicitation.Status == hub.ElicitationPending {
		im.openElicits[pe.Elicitation.ID] = *pe.Elicitation
	} else {
		delete(im.openElicits, pe.Elicitation.ID)
	}
}

// closeElicitations queues an elicitation_resolved event, cancelled by
// the hub at the thread's last time, for each question left pending.
func (im *fileImporter) closeElicitations() error {
	ids := make([]string, 0, len(im.openElicits))
	for id := range im.openElicits {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		el := im.openElicits[id]
		at := im.lastAt
		el.Status, el.DecidedBy, el.DecidedAt = hub.ElicitationCancelled, hub.DecidedByHub, &at
		el.ThreadID = im.thread.ID
		ev, err := hub.NewEvent(hub.EventElicitationResolved, *im.thread, el.TurnID, at, map[string]any{"elicitation": el})
		if err != nil {
			return err
		}
		im.w.Events = append(im.w.Events, ev)
		im.res.Events++
		im.wRows++
	}
	im.openElicits = map[string]hub.Elicitation{}
	return nil
}

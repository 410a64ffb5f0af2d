package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/state"
)

func TestAPI_TaskEvidence(t *testing.T) { exerciseTaskEvidence(newAPIEnv(t, false)) }

// exerciseTaskEvidence: GET /api/tasks/{id}/evidence lists the records
// made for the task; an unknown task is 404.
func exerciseTaskEvidence(e *apiEnv) {
	t := e.tb
	// Another exercise on the same API may have switched evidence off.
	if err := state.SetModule(e.st.Dir(), "evidence", true); err != nil {
		t.Fatal(err)
	}
	a := e.do(http.MethodPost, "/api/tasks", `{"title":"cited"}`).want(t, http.StatusCreated, "")
	id, _ := a.data("task").(map[string]any)["task_id"].(string)
	args := fmt.Sprintf(`{"session_id":"s-ev","kind":"discovery","output":{"summary":"found"},"task_id":%q}`, id)
	if env := e.r.Call(context.Background(), "cos_supervise_record_output", json.RawMessage(args), envelope.Options{}); !env.OK() {
		t.Fatalf("record: %s", env.JSON())
	}
	a = e.do(http.MethodGet, "/api/tasks/"+id+"/evidence", "").want(t, http.StatusOK, "")
	recs, _ := a.data("records").([]any)
	if len(recs) != 1 || recs[0].(map[string]any)["session_id"] != "s-ev" {
		t.Fatalf("evidence: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/tasks/TASK-904/evidence", "").want(t, http.StatusNotFound, "E_NOT_FOUND")
	e.do(http.MethodPost, "/api/tasks/"+id+"/evidence", `{}`).want(t, http.StatusMethodNotAllowed, "E_ARGUMENT")
}

package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/foley-audio/foley"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP tools' inputs. They use plain JSON types (strings for levels and
// layers) so that the schemas the SDK infers from them are what clients
// send.

// MCPEvent is a wanted sound event.
type MCPEvent struct {
	Query    string `json:"query" jsonschema:"the wanted sound, e.g. a heavy wooden door slams shut"`
	Layer    string `json:"layer,omitempty" jsonschema:"ambience, foley, sfx, music or dialogue"`
	Diegetic *bool  `json:"diegetic,omitempty" jsonschema:"whether the characters hear it (default true)"`
	UCSCatID string `json:"ucs_catid,omitempty" jsonschema:"a UCS CatID such as DOORWood"`
	Scene    string `json:"scene,omitempty" jsonschema:"the surrounding scene, for the judge"`
	EraPlace string `json:"era_place,omitempty" jsonschema:"e.g. 1920s Paris"`
	Loop     bool   `json:"loop,omitempty" jsonschema:"the sound must loop"`
}

func (e MCPEvent) event() (foley.SoundEvent, error) {
	b, _ := json.Marshal(e)
	var out foley.SoundEvent
	if err := json.Unmarshal(b, &out); err != nil {
		return out, foley.Errorf(foley.Invalid, "event: %v", err)
	}
	return out, nil
}

// SearchInput is search_sounds' input.
type SearchInput struct {
	Query          string   `json:"query" jsonschema:"the wanted sound"`
	K              int      `json:"k,omitempty" jsonschema:"how many results (default 10)"`
	LicenseIDs     []string `json:"license_ids,omitempty" jsonschema:"keep only these licence ids"`
	CommercialOnly bool     `json:"commercial_only,omitempty" jsonschema:"keep only clips whose licence permits commercial use"`
	UCSCategory    string   `json:"ucs_category,omitempty" jsonschema:"a UCS category or CatID prefix"`
}

// VerifyInput is verify_match's input.
type VerifyInput struct {
	Event   MCPEvent `json:"event"`
	IDs     []string `json:"ids" jsonschema:"library sound ids to verify (from search_sounds)"`
	Level   string   `json:"level,omitempty" jsonschema:"clap, listen (default) or judge"`
	TauClap *float64 `json:"tau_clap,omitempty" jsonschema:"the clap threshold, 0..1 (default 0.35)"`
	Use     string   `json:"use,omitempty" jsonschema:"the intended use, e.g. commercial,publish,attribute (the default) or none"`
}

// FindInput is find_sounds' input.
type FindInput struct {
	Events     []MCPEvent `json:"events" jsonschema:"the wanted sound events"`
	Level      string     `json:"level,omitempty" jsonschema:"clap, listen (default) or judge"`
	Use        string     `json:"use,omitempty" jsonschema:"the intended use (default commercial,publish,attribute)"`
	Exhaustive bool       `json:"exhaustive,omitempty" jsonschema:"verify every clap-passing clip, not only the best few"`
	NoGenerate bool       `json:"no_generate,omitempty" jsonschema:"never generate a clip"`
}

// GetInput is get_sound's input.
type GetInput struct {
	ID string `json:"id" jsonschema:"a library sound id"`
}

// NewMCPServer returns an MCP server whose tools call svc.
func NewMCPServer(svc *Service) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "foley", Version: svc.Version}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "search_sounds", Description: "Search the sound library for a wanted sound (hybrid text and vector search). Returns ranked candidates with their licences and scores."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, any, error) {
			res, err := svc.Search(ctx, SearchRequest{Query: in.Query, K: in.K, LicenseIDs: in.LicenseIDs, CommercialOnly: in.CommercialOnly, UCSCategory: in.UCSCategory})
			if err != nil {
				return nil, nil, err
			}
			return nil, map[string]any{"results": res}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "verify_match", Description: "Gate library sounds by licence for the intended use and verify each kept one against the event up the ladder (clap, listen, judge). Every verdict says which judge produced it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in VerifyInput) (*mcp.CallToolResult, any, error) {
			ev, err := in.Event.event()
			if err != nil {
				return nil, nil, err
			}
			resp, err := svc.Verify(ctx, VerifyRequest{Event: ev, IDs: in.IDs, Level: in.Level, TauClap: in.TauClap, Use: in.Use})
			if err != nil {
				return nil, nil, err
			}
			return nil, resp, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "find_sounds", Description: "For each wanted sound event, find a licensed, verified clip: search, gate, verify, then use, refine, generate or drop (silence), with the reason, the verdict trail and the credits."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in FindInput) (*mcp.CallToolResult, any, error) {
			evs := make([]foley.SoundEvent, len(in.Events))
			for i, e := range in.Events {
				ev, err := e.event()
				if err != nil {
					return nil, nil, err
				}
				evs[i] = ev
			}
			resp, err := svc.Find(ctx, FindRequest{Events: evs, Level: in.Level, Use: in.Use, Options: FindOptions{Exhaustive: in.Exhaustive, NoGenerate: in.NoGenerate}})
			if err != nil {
				return nil, nil, err
			}
			return nil, resp, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "get_sound", Description: "Get a library sound's record: caption, tags, duration, format, file, licence."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in GetInput) (*mcp.CallToolResult, any, error) {
			rec, err := svc.Sound(ctx, in.ID)
			if err != nil {
				return nil, nil, err
			}
			return nil, rec, nil
		})
	return s
}

// MCPHandler serves the MCP server over streamable HTTP.
func MCPHandler(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

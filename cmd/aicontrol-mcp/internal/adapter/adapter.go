// Package adapter turns one AiControl listener into an MCP server: one
// typed tool per action that the project's actions file describes and the
// game currently offers, an observe tool, and a resource that identifies
// the endpoint. It is built on the bridge's client library and changes
// nothing on the wire: every tool call is an ordinary act followed by the
// command's command_completed event.
package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/cmd/aicontrol-mcp/internal/actions"
	"github.com/contractkit/contractkit/generated/aicontrol"
)

// Defaults of the adapter's own settings; the protocol fixes none of them.
const (
	// DefaultCallTimeout bounds how long a tool call waits for its
	// command's completion.
	DefaultCallTimeout = 30 * time.Second
	// DefaultRefresh is how often the adapter asks the listener whether
	// the observation, and with it availableActions, has changed.
	DefaultRefresh = 250 * time.Millisecond
	// DefaultMaxInFlight bounds the commands whose completion the adapter
	// waits for at once; a call that is cancelled or times out frees its
	// place at once.
	DefaultMaxInFlight = 64
)

// EndpointURI is the URI of the endpoint resource.
const EndpointURI = "aicontrol://endpoint"

// Name is the adapter's MCP implementation name.
const Name = "aicontrol-mcp"

// Config configures an adapter.
type Config struct {
	// Client says where the listener is and carries the token.
	Client bridge.ClientConfig
	// TokenEnv names the variable the token came from, for messages; the
	// token itself never appears in any.
	TokenEnv string
	// Actions is the project's catalog.
	Actions *actions.File
	// Lang chooses the language of descriptions: "en" (default) or "ru".
	Lang string
	// CallTimeout bounds a tool call's wait (0: DefaultCallTimeout).
	CallTimeout time.Duration
	// Refresh is the status polling period (0: DefaultRefresh).
	Refresh time.Duration
	// MaxInFlight bounds waiting commands (0: DefaultMaxInFlight).
	MaxInFlight int
	// ProjectRevision, when set, replaces the actions file's revision in
	// the endpoint resource (a launch recipe may pass the build's).
	ProjectRevision string
	// Logger receives the adapter's log; nil discards it.
	Logger *slog.Logger
}

// Adapter is a running adapter. Create it with New, serve its Server, and
// Close it when the session ends.
type Adapter struct {
	cfg    Config
	host   string
	port   int
	log    *slog.Logger
	server *mcp.Server
	stop   chan struct{}
	closer sync.Once

	wake       chan struct{}
	followDone chan struct{}

	// mu guards the connection and everything learnt through it.
	mu        sync.Mutex
	client    *bridge.Client
	cursor    bridge.Cursor
	waiters   map[int64]*waiter
	status    aicontrol.StatusResult
	obsSeq    int64
	available map[string]bool
	untyped   []string
	published []string // tool names of the action tools now published
	schemaErr error    // the last observation's schema mismatch, if any
	lastError string
	connects  int
}

// New checks the settings, connects to the listener, checks the
// observation's schemaVersion against the actions file, and only then
// builds the MCP server with the tools of the actions available now.
func New(ctx context.Context, cfg Config) (*Adapter, error) {
	if cfg.Actions == nil {
		return nil, errors.New("no actions file")
	}
	host, port, err := bridge.CheckClientConfig(cfg.Client)
	if err != nil {
		return nil, err
	}
	if cfg.Lang == "" {
		cfg.Lang = "en"
	}
	if cfg.Lang != "en" && cfg.Lang != "ru" {
		return nil, fmt.Errorf("language %q: want en or ru", cfg.Lang)
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.Refresh == 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.CallTimeout < 0 || cfg.Refresh < 0 || cfg.MaxInFlight < 0 {
		return nil, errors.New("timeouts, refresh period and in-flight limit must be positive")
	}
	if cfg.TokenEnv == "" {
		cfg.TokenEnv = "AICONTROL_TOKEN"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Adapter{
		cfg:        cfg,
		host:       host,
		port:       port,
		log:        log,
		wake:       make(chan struct{}, 1),
		followDone: make(chan struct{}),
		waiters:    map[int64]*waiter{},
		available:  map[string]bool{},
	}
	a.server = mcp.NewServer(&mcp.Implementation{Name: Name, Version: version()}, &mcp.ServerOptions{
		Instructions: a.text(instructions),
		Logger:       log,
		// Tools come and go with availableActions, so clients are told
		// the list changes even when it is empty for a while.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{},
		},
	})
	a.mu.Lock()
	err = a.connectLocked(ctx)
	a.mu.Unlock()
	if err != nil {
		return nil, err
	}
	a.server.AddTool(a.observeTool(), a.callObserve)
	a.server.AddResource(&mcp.Resource{
		URI:         EndpointURI,
		Name:        "endpoint",
		Title:       a.text(actions.Text{En: "AiControl endpoint", Ru: "Endpoint AiControl"}),
		Description: a.text(endpointDescription),
		MIMEType:    "application/json",
	}, a.readEndpoint)
	a.stop = make(chan struct{})
	go a.follow(a.stop)
	return a, nil
}

// Server is the MCP server to run on a transport.
func (a *Adapter) Server() *mcp.Server { return a.server }

// Close stops following the listener and closes the connection. Commands
// still in the game run to completion there; nobody waits for them.
// Calling it again does nothing.
func (a *Adapter) Close() {
	a.closer.Do(a.close)
}

func (a *Adapter) close() {
	close(a.stop)
	<-a.followDone
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, w := range a.waiters {
		w.done <- completion{err: errors.New("the adapter is shutting down")}
	}
	clear(a.waiters)
	if a.client != nil {
		a.client.Close()
		a.client = nil
	}
}

func (a *Adapter) text(t actions.Text) string { return t.In(a.cfg.Lang) }

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

var (
	instructions = actions.Text{
		En: "Tools of a running game's development client. Each action tool queues one game command, waits for its completion and returns whether it succeeded. Only the actions the game offers right now are listed; the list changes as the game state does. The observe tool returns the latest observation.",
		Ru: "Инструменты клиента разработки запущенной игры. Каждый инструмент действия ставит в очередь одну игровую команду, ждёт её завершения и сообщает, удалась ли она. Перечислены только действия, которые игра предлагает сейчас; список меняется вместе с состоянием игры. Инструмент observe возвращает последнее наблюдение.",
	}
	observeDescription = actions.Text{
		En: "Read the game's latest observation: its observationSeq and the project's observation object (schemaVersion, availableActions and the project's own members).",
		Ru: "Прочитать последнее наблюдение игры: observationSeq и проектный объект наблюдения (schemaVersion, availableActions и собственные поля проекта).",
	}
	endpointDescription = actions.Text{
		En: "Which listener this adapter drives: its address, the AiControl protocol version, the observation schemaVersion, the project and its revision, and the listener's status.",
		Ru: "Какой listener обслуживает адаптер: его адрес, версия протокола AiControl, schemaVersion наблюдения, проект и его ревизия, а также status listener.",
	}
)

// acceptLocked takes a new observation: it checks its schemaVersion and
// publishes exactly the tools of the actions it makes available. A
// mismatch withdraws every action tool and is returned.
func (a *Adapter) acceptLocked(res aicontrol.ObserveResult) error {
	a.obsSeq = res.ObservationSeq
	obs, err := actions.ReadObservation(res.Observation)
	if err == nil {
		err = a.cfg.Actions.CheckSchema(obs)
	}
	var typed []*actions.Action
	if err != nil {
		clear(a.available)
		a.untyped = nil
	} else {
		typed, a.untyped = a.cfg.Actions.Split(obs.Available)
		clear(a.available)
		for _, n := range obs.Available {
			a.available[n] = true
		}
	}
	a.schemaErr = err
	a.publishLocked(typed)
	return err
}

// publishLocked makes the action tools exactly those of typed. The SDK
// sends notifications/tools/list_changed after a change.
func (a *Adapter) publishLocked(typed []*actions.Action) {
	want := make([]string, 0, len(typed))
	for _, act := range typed {
		want = append(want, act.Tool)
	}
	var gone []string
	for _, t := range a.published {
		if !slices.Contains(want, t) {
			gone = append(gone, t)
		}
	}
	if len(gone) > 0 {
		a.server.RemoveTools(gone...)
	}
	for _, act := range typed {
		if !slices.Contains(a.published, act.Tool) {
			a.server.AddTool(a.actionTool(act), a.actionHandler(act))
		}
	}
	if !slices.Equal(want, a.published) {
		a.log.Info("tools changed", "tools", want, "untypedActions", a.untyped)
	}
	a.published = want
}

// actionOutput is the structured result of an action tool.
type actionOutput struct {
	Action     string `json:"action"`
	CommandSeq int64  `json:"commandSeq"`
	EventSeq   int64  `json:"eventSeq"`
	Success    bool   `json:"success"`
	Message    string `json:"message"`
}

var actionOutputSchema = json.RawMessage(`{"type":"object","required":["action","commandSeq","eventSeq","success","message"],"properties":{` +
	`"action":{"type":"string"},"commandSeq":{"type":"integer","minimum":1},"eventSeq":{"type":"integer","minimum":1},` +
	`"success":{"type":"boolean"},"message":{"type":"string"}}}`)

var observeOutputSchema = json.RawMessage(`{"type":"object","required":["observationSeq","observation"],"properties":{` +
	`"observationSeq":{"type":"integer","minimum":0},"observation":{"type":"object"}}}`)

func (a *Adapter) actionTool(act *actions.Action) *mcp.Tool {
	return &mcp.Tool{
		Name:         act.Tool,
		Title:        a.text(act.Title),
		Description:  a.text(act.Description),
		InputSchema:  act.Arguments,
		OutputSchema: actionOutputSchema,
	}
}

func (a *Adapter) observeTool() *mcp.Tool {
	return &mcp.Tool{
		Name:         a.cfg.Actions.ObserveTool(),
		Title:        a.text(actions.Text{En: "Observe the game", Ru: "Наблюдать за игрой"}),
		Description:  a.text(observeDescription),
		InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
		OutputSchema: observeOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true},
	}
}

// toolError is a result the model reads as a failed call.
func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// structured is a result with structured content and its JSON as text.
func structured(v any, isError bool) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		IsError:           isError,
		StructuredContent: json.RawMessage(b),
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
	}, nil
}

// actionHandler runs one action: arguments are checked before anything
// is sent, the command is queued, and the call waits for its completion.
func (a *Adapter) actionHandler(act *actions.Action) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cmd, err := act.Command(req.Params.Arguments)
		if err != nil {
			return toolError(err), nil
		}
		seq, w, err := a.act(ctx, cmd, func() error { return a.availableLocked(act) })
		if err != nil {
			var re *bridge.RemoteError
			if errors.As(err, &re) {
				return toolError(remoteProblem(act, re)), nil
			}
			if errors.Is(err, bridge.ErrRequestTooLarge) {
				return toolError(fmt.Errorf("invalid arguments for %s: the command does not fit in one protocol line (%w); nothing was sent", act.Tool, err)), nil
			}
			return toolError(fmt.Errorf("%s: %w", act.Tool, err)), nil
		}
		timeout := time.NewTimer(a.cfg.CallTimeout)
		defer timeout.Stop()
		select {
		case c := <-w.done:
			if c.err != nil {
				return toolError(c.err), nil
			}
			out := actionOutput{Action: act.Name, CommandSeq: seq, EventSeq: c.eventSeq, Success: c.event.Success, Message: c.event.Message}
			// A refusal by the game is a failed call: the model should
			// not read it as done.
			return structured(out, !out.Success)
		case <-timeout.C:
			a.abandon(seq)
			return toolError(fmt.Errorf("%s: command %d did not complete within %s; it stays with the game, and its completion will not be reported here; call %s to see the game's state",
				act.Tool, seq, a.cfg.CallTimeout, a.cfg.Actions.ObserveTool())), nil
		case <-ctx.Done():
			a.abandon(seq)
			return nil, ctx.Err()
		}
	}
}

// availableLocked refuses an action the latest observation does not offer
// (a client may hold a tool list older than the game's state).
func (a *Adapter) availableLocked(act *actions.Action) error {
	if a.schemaErr != nil {
		return a.schemaErr
	}
	if !a.available[act.Name] {
		return fmt.Errorf("action %q is not available in the game's current observation; list the tools again", act.Name)
	}
	return nil
}

// remoteProblem explains an error response to act.
func remoteProblem(act *actions.Action, re *bridge.RemoteError) error {
	if re.Code == aicontrol.CodeQueueFull {
		return fmt.Errorf("%s: the game's command queue is full (error %d): nothing was queued; retry after earlier commands complete", act.Tool, re.Code)
	}
	return fmt.Errorf("%s: the listener rejected the command: %w", act.Tool, re)
}

// observeOutput is the observe tool's structured result.
type observeOutput struct {
	ObservationSeq int64           `json:"observationSeq"`
	Observation    json.RawMessage `json:"observation"`
}

func (a *Adapter) callObserve(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := a.observe(ctx)
	if err != nil {
		return toolError(err), nil
	}
	return structured(observeOutput{ObservationSeq: res.ObservationSeq, Observation: res.Observation}, false)
}

// observe reads the observation, reconnecting if needed, and takes it
// into account for the tools.
func (a *Adapter) observe(ctx context.Context) (aicontrol.ObserveResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	res, err := requestLocked(ctx, a, nil, func(c *bridge.Client) (aicontrol.ObserveResult, error) { return c.Observe(ctx) })
	if err != nil {
		return res, err
	}
	if res.ObservationSeq != a.obsSeq {
		if err := a.acceptLocked(res); err != nil {
			a.log.Warn("observation not accepted", "endpoint", a.addr(), "reason", err.Error())
		}
	}
	return res, nil
}

// endpointInfo is the endpoint resource. It never holds the token.
type endpointInfo struct {
	Endpoint         string                  `json:"endpoint"`
	Connected        bool                    `json:"connected"`
	ProtocolVersion  int64                   `json:"protocolVersion"`
	SchemaVersion    json.RawMessage         `json:"schemaVersion"`
	Project          projectInfo             `json:"project"`
	Adapter          mcp.Implementation      `json:"adapter"`
	Listener         *aicontrol.StatusResult `json:"listener,omitempty"`
	AvailableActions []string                `json:"availableActions"`
	Tools            []string                `json:"tools"`
	UntypedActions   []string                `json:"untypedActions"`
	LastError        string                  `json:"lastError,omitempty"`
}

type projectInfo struct {
	Name     string `json:"name,omitempty"`
	Revision string `json:"revision,omitempty"`
}

func (a *Adapter) readEndpoint(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	info := a.endpointInfo(ctx)
	b, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: EndpointURI, MIMEType: "application/json", Text: string(b)}}}, nil
}

// endpointInfo reads the listener's status now (reconnecting if needed);
// when it cannot, the resource says so instead of failing.
func (a *Adapter) endpointInfo(ctx context.Context) endpointInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	if st, err := requestLocked(ctx, a, nil, func(c *bridge.Client) (aicontrol.StatusResult, error) { return c.Status(ctx) }); err == nil {
		a.status = st
	}
	rev := a.cfg.Actions.ProjectRevision
	if a.cfg.ProjectRevision != "" {
		rev = a.cfg.ProjectRevision
	}
	info := endpointInfo{
		Endpoint:         a.addr(),
		Connected:        a.client != nil,
		ProtocolVersion:  aicontrol.ProtocolVersion,
		SchemaVersion:    json.RawMessage(a.cfg.Actions.SchemaVersion),
		Project:          projectInfo{Name: a.cfg.Actions.ProjectName, Revision: rev},
		Adapter:          mcp.Implementation{Name: Name, Version: version()},
		AvailableActions: sortedKeys(a.available),
		Tools:            append([]string{a.cfg.Actions.ObserveTool()}, a.published...),
		UntypedActions:   append([]string{}, a.untyped...),
		LastError:        a.lastError,
	}
	if a.client != nil {
		st := a.status
		info.Listener = &st
	}
	return info
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Package policy decides permission requests by rule, before a person is
// asked: the config file's permissions.rules (Compile) and the decisions
// people asked the hub to remember (hub.RememberedRule). It is pure: it
// imports hub and the standard library only, reads no file (the caller
// resolves a request's paths once, outside the rule loop) and keeps no
// state beyond a compiled Policy, which is immutable and safe for
// concurrent use.
//
// What a rule trusts is the agent program's labelling of the request —
// its kind, its command (rawInput.command, cmd or argv), its locations —
// never the model's prose. Nothing is approved by default: no rule, no
// match, or a decision the offered options cannot express all mean ask.
package policy

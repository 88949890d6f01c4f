package app

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// settingsOr is s, or when nil a SettingsService that answers every call
// NOT_FOUND "settings are not available" (as the HTTP API does).
func settingsOr(s hub.SettingsService) hub.SettingsService {
	if s == nil {
		return noSettings{}
	}
	return s
}

type noSettings struct{}

func (noSettings) Settings(context.Context) (hub.Settings, error) {
	return hub.Settings{}, hub.Errorf(hub.CodeNotFound, "settings are not available")
}

func (noSettings) UpdateSettings(context.Context, hub.SettingsPatch) (hub.Settings, error) {
	return hub.Settings{}, hub.Errorf(hub.CodeNotFound, "settings are not available")
}

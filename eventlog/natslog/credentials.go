package natslog

import (
	"fmt"
	"os"

	"github.com/nats-io/nats.go"
)

// Environment variables that give the log's connection its credentials
// (a store address never holds them: ParseStore refuses user information,
// so they do not end up in shell history, logs or answers).
const (
	// EnvCredsFile names a NATS credentials file (.creds: a user JWT and
	// its NKey seed), for servers run in operator mode.
	EnvCredsFile = "COS_NATS_CREDS"
	// EnvUser and EnvPassword are a user name and password of the servers'
	// authorization block (deploy/nats/permissions.conf).
	EnvUser     = "COS_NATS_USER"
	EnvPassword = "COS_NATS_PASSWORD"
)

// credentialOptions returns the connection options of the credentials
// the environment names: none when no variable is set. A password without
// a user, or both a credentials file and a user, is an error naming the
// variables.
func credentialOptions() ([]nats.Option, error) {
	creds, user, pass := os.Getenv(EnvCredsFile), os.Getenv(EnvUser), os.Getenv(EnvPassword)
	switch {
	case creds != "" && (user != "" || pass != ""):
		return nil, fmt.Errorf("set %s or %s and %s, not both", EnvCredsFile, EnvUser, EnvPassword)
	case creds != "":
		return []nats.Option{nats.UserCredentials(creds)}, nil
	case user == "" && pass != "":
		return nil, fmt.Errorf("%s is set without %s", EnvPassword, EnvUser)
	case user != "":
		return []nats.Option{nats.UserInfo(user, pass)}, nil
	}
	return nil, nil
}

package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// composeFile is what TestComposeFile reads of deploy/compose.yaml.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		Ports       []string          `yaml:"ports"`
		Deploy      struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"deploy"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

// The compose file of the shared mode starts what docs/ARCHITECTURE.md
// says (PostgreSQL, one web process, two workers, one data volume), and
// every setting it gives the app is one this binary accepts: its
// environment, with the variables the user exports filled in, is parsed
// as the server parses it at start; and each app service's health check
// is the binary's own readiness check. (No Docker daemon runs in CI; this is
// the part of the file a test can hold to the binary.)
func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	db, ok := c.Services["db"]
	if !ok || !strings.HasPrefix(db.Image, "postgres:") {
		t.Fatalf("services.db: got image %q, want a postgres image", db.Image)
	}
	// ${NAME:?message} and ${NAME} as docker compose fills them in.
	user := map[string]string{"MLDR_DB_PASSWORD": "db-secret-1234", "MLDR_TOKEN": "0123456789abcdef-token"}
	vars := regexp.MustCompile(`\$\{([A-Z_]+)(:\?[^}]*)?\}`)
	fill := func(s string) string {
		return vars.ReplaceAllStringFunc(s, func(m string) string { return user[vars.FindStringSubmatch(m)[1]] })
	}
	for _, tc := range []struct {
		service  string
		role     string
		replicas int
		port     bool
	}{
		{"web", roleWeb, 0, true},
		{"worker", roleWorker, 2, false},
	} {
		t.Run(tc.service, func(t *testing.T) {
			s, ok := c.Services[tc.service]
			if !ok {
				t.Fatalf("no service %q", tc.service)
			}
			env := map[string]string{}
			for k, v := range s.Environment {
				env[k] = fill(v)
			}
			cfg, err := parseConfig(nil, func(k string) string { return env[k] }, io.Discard)
			if err != nil {
				t.Fatalf("the server refuses the service's settings: %v", err)
			}
			if cfg.role != tc.role || cfg.database == "" || cfg.token == "" || cfg.addr != "0.0.0.0:8080" || cfg.dataDir != "/data" {
				t.Errorf("got role %q, database %q, token set %v, addr %q, data dir %q; want %s, the db service's database, a token, 0.0.0.0:8080, /data",
					cfg.role, cfg.databaseWhere, cfg.token != "", cfg.addr, cfg.dataDir, tc.role)
			}
			if want := "mldr:" + fill(db.Environment["POSTGRES_PASSWORD"]) + "@db:5432/" + db.Environment["POSTGRES_DB"]; !strings.Contains(cfg.database, want) || db.Environment["POSTGRES_USER"] != "mldr" {
				t.Errorf("database %q does not name the db service's user, password and database (%s)", cfg.databaseWhere, want)
			}
			if len(s.Volumes) != 1 || !strings.HasPrefix(s.Volumes[0], "mldr-data:/data") {
				t.Errorf("volumes %v, want the shared mldr-data volume on /data", s.Volumes)
			}
			if got := strings.Join(s.Healthcheck.Test, " "); got != "CMD /webapp -healthcheck" {
				t.Errorf("healthcheck %q, want CMD /webapp -healthcheck (readiness, /readyz)", got)
			}
			if s.Deploy.Replicas != tc.replicas || (len(s.Ports) > 0) != tc.port {
				t.Errorf("replicas %d, ports %v; want %d replicas, published port %v", s.Deploy.Replicas, s.Ports, tc.replicas, tc.port)
			}
		})
	}
	if _, ok := c.Volumes["mldr-data"]; !ok {
		t.Error("no volume mldr-data")
	}
}

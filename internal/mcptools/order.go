package mcptools

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/rtcagent/rtcagent/internal/tools"
)

// The SDK decodes an elicitation's requested schema into a map, which loses
// the order the server wrote its properties in, and that order is the form's.
// So each line a server sends that holds a requestedSchema is read, before the
// SDK decodes it, for the order of that schema's properties, kept by their set
// of names; the elicitation then finds its order by its names.

// maxOrders bounds the orders a connection keeps (the newest win).
const maxOrders = 32

// noteLine reads one line of a server's output before the SDK decodes it:
// for the tools that require tasks and the order of requested schemas.
func (c *conn) noteLine(line []byte) {
	c.noteTaskSupport(line)
	c.noteSchemaOrder(line)
}

// noteSchemaOrder reads one line of a server's output for the property order
// of each requestedSchema in it.
func (c *conn) noteSchemaOrder(line []byte) {
	if !bytes.Contains(line, []byte(`"requestedSchema"`)) {
		return
	}
	var found [][]string
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data:"))))
	_ = schemaOrders(dec, &found)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, names := range found {
		key := orderKey(names)
		c.orderKeys = slices.DeleteFunc(c.orderKeys, func(k string) bool { return k == key })
		c.orderKeys = append(c.orderKeys, key)
		c.orders[key] = names
		if len(c.orderKeys) > maxOrders {
			delete(c.orders, c.orderKeys[0])
			c.orderKeys = c.orderKeys[1:]
		}
	}
}

// schemaOrder is the order the server wrote the properties named in (any
// order) in, or nil when it was not seen.
func (c *conn) schemaOrder(names []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.orders[orderKey(names)]
}

func orderKey(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return strings.Join(s, "\x00")
}

// schemaOrders reads the next JSON value from dec and adds the property order
// of each object under a "requestedSchema" key in it to out.
func schemaOrders(dec *json.Decoder, out *[][]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			if key == "requestedSchema" {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return err
				}
				if names := tools.PropertyOrder(raw); len(names) > 0 {
					*out = append(*out, names)
				}
				continue
			}
			if err := schemaOrders(dec, out); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := schemaOrders(dec, out); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// propertyNames are the names of a decoded schema's properties.
func propertyNames(schema any) []string {
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	return names
}

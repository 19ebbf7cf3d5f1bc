package idl

import "bytes"

// Format returns .msg text equivalent to m: its constants, then its fields,
// one per line, with values as written in the source. Parsing the text
// gives back the same constants and fields.
func (m *Message) Format() []byte {
	var b bytes.Buffer
	m.format(&b)
	return b.Bytes()
}

func (m *Message) format(b *bytes.Buffer) {
	for _, c := range m.Constants {
		b.WriteString(c.Type.String())
		b.WriteByte(' ')
		b.WriteString(c.Name)
		b.WriteByte('=')
		b.WriteString(c.Value.Literal)
		b.WriteByte('\n')
	}
	for _, f := range m.Fields {
		b.WriteString(f.Type.String())
		b.WriteByte(' ')
		b.WriteString(f.Name)
		if f.Default != nil {
			b.WriteByte(' ')
			b.WriteString(f.Default.Literal)
		}
		b.WriteByte('\n')
	}
}

// Format returns .srv text equivalent to s: the request, a "---" line and
// the response, formatted as by [Message.Format].
func (s *Service) Format() []byte {
	var b bytes.Buffer
	s.Request.format(&b)
	b.WriteString("---\n")
	s.Response.format(&b)
	return b.Bytes()
}

// Format returns .action text equivalent to a: goal, result and feedback
// separated by "---" lines, formatted as by [Message.Format].
func (a *Action) Format() []byte {
	var b bytes.Buffer
	a.Goal.format(&b)
	b.WriteString("---\n")
	a.Result.format(&b)
	b.WriteString("---\n")
	a.Feedback.format(&b)
	return b.Bytes()
}

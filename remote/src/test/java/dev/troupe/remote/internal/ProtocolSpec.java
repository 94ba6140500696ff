package dev.troupe.remote.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code docs/protocol.md} read as data: its field tables (one per frame type, a column of example
 * values per golden file), its frame-type table and its constants. It encodes and parses frames
 * from those tables alone, without the transport's encoders, so a test that builds its frames
 * here proves the document sufficient to speak the protocol. Test-only; allocates freely.
 */
final class ProtocolSpec {

    /** One field of a frame: its name and its type as the document writes them. */
    record Field(String name, String type, String bound) {
    }

    /** One frame layout: its name, type byte (-1 for the magic, which is not a frame), fields and example columns. */
    record FrameSpec(String name, int type, List<Field> fields, Map<String, List<String>> examples) {
    }

    private static final Pattern HEADING = Pattern.compile("^#{2,3} ([A-Z_]+) \\((0x[0-9A-Fa-f]{2})\\)\\s*$");
    private static final Pattern RANGE = Pattern.compile("^([0-9a-f]{2})…([0-9a-f]{2})$");

    final String title;
    final Map<String, FrameSpec> frames = new LinkedHashMap<>();
    /** Frame type byte to name, from the frame-type table. */
    final Map<Integer, String> types = new LinkedHashMap<>();
    /** Constant name to value text, from the protocol-constants table. */
    final Map<String, String> constants = new LinkedHashMap<>();
    /** Version to what a node of this version does, from the versions table. */
    final Map<Integer, String> versions = new LinkedHashMap<>();

    private ProtocolSpec(List<String> lines) {
        title = lines.get(0);
        String section = null;
        String frame = null;
        int frameType = 0;
        for (int i = 0; i < lines.size(); i++) {
            final String line = lines.get(i);
            if (line.startsWith("## ")) {
                section = line.substring(3).trim();
            }
            final Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                frame = h.group(1);
                frameType = Integer.parseInt(h.group(2).substring(2), 16);
                continue;
            }
            if (!line.startsWith("|") || i + 1 >= lines.size() || !lines.get(i + 1).startsWith("|---")) {
                continue;
            }
            final List<String> header = cells(line);
            final List<List<String>> rows = new ArrayList<>();
            int j = i + 2;
            while (j < lines.size() && lines.get(j).startsWith("|")) {
                rows.add(cells(lines.get(j)));
                j++;
            }
            if (header.size() >= 4 && header.get(0).equals("field") && header.get(1).equals("type") && header.get(2).equals("bound")) {
                final boolean magic = "Framing".equals(section);
                final String name = magic ? "MAGIC" : frame;
                final List<Field> fields = new ArrayList<>();
                final Map<String, List<String>> examples = new LinkedHashMap<>();
                for (int c = 3; c < header.size(); c++) {
                    examples.put(header.get(c), new ArrayList<>());
                }
                for (List<String> r : rows) {
                    fields.add(new Field(unquote(r.get(0)), unquote(r.get(1)), r.get(2)));
                    for (int c = 3; c < header.size(); c++) {
                        examples.get(header.get(c)).add(r.get(c));
                    }
                }
                frames.put(name, new FrameSpec(name, magic ? -1 : frameType, fields, examples));
            } else if (header.size() == 4 && header.get(0).equals("type") && header.get(1).equals("name")) {
                for (List<String> r : rows) {
                    types.put(Integer.parseInt(r.get(0).substring(2), 16), r.get(1));
                }
            } else if (header.size() == 2 && header.get(0).equals("constant")) {
                for (List<String> r : rows) {
                    constants.put(r.get(0), r.get(1));
                }
            } else if (header.size() == 3 && header.get(0).equals("version")) {
                for (List<String> r : rows) {
                    versions.put(Integer.parseInt(r.get(0)), r.get(2));
                }
            }
            i = j - 1;
        }
    }

    /** @return the specification as the repository has it ({@code docs/protocol.md} beside the module) */
    static ProtocolSpec load() {
        Path p = Path.of("../docs/protocol.md");
        if (!Files.exists(p)) {
            p = Path.of("docs/protocol.md");
        }
        try {
            return new ProtocolSpec(Files.readAllLines(p, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Splits a table row at its unescaped pipes; {@code \|} is a pipe inside a cell. */
    private static List<String> cells(String row) {
        final List<String> out = new ArrayList<>();
        final StringBuilder cell = new StringBuilder();
        final String r = row.trim();
        for (int i = 1; i < r.length(); i++) {
            final char ch = r.charAt(i);
            if (ch == '\\' && i + 1 < r.length() && r.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (ch == '|') {
                out.add(cell.toString().trim());
                cell.setLength(0);
            } else {
                cell.append(ch);
            }
        }
        return out;
    }

    private static String unquote(String s) {
        return s.startsWith("`") && s.endsWith("`") ? s.substring(1, s.length() - 1) : s;
    }

    FrameSpec frame(String name) {
        final FrameSpec f = frames.get(name);
        if (f == null) {
            throw new IllegalArgumentException("docs/protocol.md has no field table for " + name + " (has " + frames.keySet() + ")");
        }
        return f;
    }

    // ---------------------------------------------------------------- encoding

    /** @return the bytes the document's example column {@code file} (a golden file name) describes */
    byte[] golden(String file) {
        for (FrameSpec f : frames.values()) {
            final List<String> column = f.examples().get(file);
            if (column != null) {
                final Map<String, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < f.fields().size(); i++) {
                    final String cell = column.get(i);
                    if (!cell.equals("—")) {
                        values.put(f.fields().get(i).name(), example(f.fields().get(i), cell));
                    }
                }
                return encode(f, values);
            }
        }
        throw new IllegalArgumentException("no example column " + file + " in docs/protocol.md");
    }

    /** @return every example column (golden file name) the document has */
    List<String> goldenFiles() {
        final List<String> out = new ArrayList<>();
        for (FrameSpec f : frames.values()) {
            out.addAll(f.examples().keySet());
        }
        return out;
    }

    private static Object example(Field field, String cell) {
        final String type = field.type();
        if (cell.startsWith("\"") && cell.endsWith("\"")) {
            return cell.substring(1, cell.length() - 1);
        }
        if (type.startsWith("bytes")) {
            final Matcher m = RANGE.matcher(cell);
            if (m.matches()) {
                final int from = Integer.parseInt(m.group(1), 16);
                final int to = Integer.parseInt(m.group(2), 16);
                final byte[] b = new byte[to - from + 1];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) (from + i);
                }
                return b;
            }
            throw new IllegalArgumentException("example " + cell + " of " + field.name() + " is not text or a byte range");
        }
        return cell.startsWith("0x") ? Long.parseUnsignedLong(cell.substring(2), 16) : Long.parseLong(cell);
    }

    /**
     * Encodes a frame from the document's layout: the length prefix and type byte, then each field
     * in the document's order. A field absent from {@code values} is left out (the optional parts
     * of USER); for a field of fixed type an absent value is an error.
     *
     * @param values field name to a {@link Number}, a {@code byte[]} or a {@link String}
     * @return the whole frame (or the four magic bytes)
     */
    byte[] encode(FrameSpec f, Map<String, ?> values) {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Field field : f.fields()) {
            final Object v = values.get(field.name());
            if (v == null) {
                continue;
            }
            write(body, field, v);
        }
        final byte[] b = body.toByteArray();
        if (f.type() < 0) {
            return b;
        }
        final ByteBuffer frame = ByteBuffer.allocate(5 + b.length);
        frame.putInt(1 + b.length).put((byte) f.type()).put(b);
        return frame.array();
    }

    /** @return a frame of the named type from field values given as name, value, name, value, ... */
    byte[] encode(String frame, Object... nameValue) {
        final Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 0; i + 1 < nameValue.length; i += 2) {
            values.put((String) nameValue[i], nameValue[i + 1]);
        }
        final FrameSpec f = frame(frame);
        for (String name : values.keySet()) {
            if (f.fields().stream().noneMatch(x -> x.name().equals(name))) {
                throw new IllegalArgumentException(frame + " has no field " + name + " in docs/protocol.md");
            }
        }
        return encode(f, values);
    }

    private static void write(ByteArrayOutputStream out, Field field, Object v) {
        final String type = field.type();
        switch (type) {
            case "uint8":
                out.write((int) number(v));
                return;
            case "uint16":
                out.write((int) (number(v) >>> 8));
                out.write((int) number(v));
                return;
            case "int32":
                out.writeBytes(ByteBuffer.allocate(4).putInt((int) number(v)).array());
                return;
            case "int64":
                out.writeBytes(ByteBuffer.allocate(8).putLong(number(v)).array());
                return;
            case "str": {
                final byte[] b = bytes(v);
                out.write(b.length >>> 8);
                out.write(b.length);
                out.writeBytes(b);
                return;
            }
            default:
                if (type.equals("bytes")) {
                    out.writeBytes(bytes(v));
                    return;
                }
                if (type.startsWith("bytes[")) {
                    final int n = Integer.parseInt(type.substring(6, type.length() - 1));
                    final byte[] b = bytes(v);
                    if (b.length != n) {
                        throw new IllegalArgumentException(field.name() + " takes " + n + " bytes, got " + b.length);
                    }
                    out.writeBytes(b);
                    return;
                }
                throw new IllegalArgumentException("docs/protocol.md names a type this reader does not know: " + type);
        }
    }

    private static long number(Object v) {
        return ((Number) v).longValue();
    }

    private static byte[] bytes(Object v) {
        return v instanceof byte[] ? (byte[]) v : ((String) v).getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- parsing

    /**
     * Parses a frame body (after the type byte) by the document's layout, fixed-size fields only
     * and {@code str}; a trailing {@code bytes} field takes the rest.
     *
     * @return field name to {@link Long}, {@code byte[]} (for {@code bytes[n]} and {@code bytes}) or {@link String}
     */
    Map<String, Object> parse(String frame, byte[] body, int offset) {
        final ByteBuffer in = ByteBuffer.wrap(body, offset, body.length - offset);
        final Map<String, Object> out = new LinkedHashMap<>();
        for (Field field : frame(frame).fields()) {
            final String type = field.type();
            switch (type) {
                case "uint8" -> out.put(field.name(), (long) (in.get() & 0xFF));
                case "uint16" -> out.put(field.name(), (long) (in.getShort() & 0xFFFF));
                case "int32" -> out.put(field.name(), (long) in.getInt());
                case "int64" -> out.put(field.name(), in.getLong());
                case "str" -> {
                    final byte[] b = new byte[in.getShort() & 0xFFFF];
                    in.get(b);
                    out.put(field.name(), new String(b, StandardCharsets.UTF_8));
                }
                case "bytes" -> {
                    final byte[] b = new byte[in.remaining()];
                    in.get(b);
                    out.put(field.name(), b);
                }
                default -> {
                    final byte[] b = new byte[Integer.parseInt(type.substring(6, type.length() - 1))];
                    in.get(b);
                    out.put(field.name(), b);
                }
            }
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(frame + " has " + in.remaining() + " bytes more than docs/protocol.md describes");
        }
        return out;
    }
}

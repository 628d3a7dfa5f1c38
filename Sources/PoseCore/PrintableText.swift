/// Text that is safe to show on a terminal in one line.
public enum PrintableText {
    /// `text` with every control character (C0, DEL, C1) but the tab replaced by `?`, as `ls`
    /// shows such names on a terminal: nothing from a file name or a child process's output can
    /// move the cursor, recolor the terminal or hide the rest of a message.
    public static func make(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isControl(scalar) ? "?" : scalar) }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value != 0x09 && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
    }
}

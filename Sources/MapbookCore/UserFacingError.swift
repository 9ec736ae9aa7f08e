/// An error that can say, in one sentence, what went wrong and what the user can do about it.
/// Every error type that reaches a screen or the CLI conforms.
public protocol UserFacingError: Error {
    var userMessage: String { get }
}

/// A way of running mapbook that cannot work here (no terminal for the browser): what the command
/// line reports as a usage error, whichever front end found it.
public protocol UsageError: UserFacingError {}

extension Error {
    /// The one sentence to show for any error, as one clean line (sentences carry names from files
    /// and servers); errors that are not `UserFacingError` are bugs, named by type so a report says
    /// where to look.
    public var userSentence: String {
        if let known = self as? any UserFacingError { return TerminalText.sanitizedLine(known.userMessage, maxLength: 2_000) }
        if self is CancellationError { return "Cancelled." }
        return "Something unexpected went wrong (\(String(describing: type(of: self))))."
    }
}

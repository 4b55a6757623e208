import GRDB
import ReceptionCore
import ReceptionStorage

extension ConversationLog {
    /// The log's schema, one step per version. A step is never changed once released: a new
    /// column or table is a new step.
    static let migrations: [PrivateDatabase.Migration] = [
        PrivateDatabase.Migration(version: 1) { db in
            try db.execute(sql: """
                CREATE TABLE conversations (
                    id TEXT PRIMARY KEY NOT NULL,
                    started_at REAL NOT NULL,
                    last_at REAL NOT NULL,
                    backend TEXT NOT NULL,
                    endpoint TEXT,
                    soul TEXT,
                    model TEXT,
                    title TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX conversations_last ON conversations(last_at);

                CREATE TABLE exchanges (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    sent_at REAL NOT NULL,
                    ended_at REAL,
                    backend TEXT NOT NULL,
                    endpoint TEXT,
                    soul TEXT,
                    model TEXT,
                    message TEXT NOT NULL,
                    goal TEXT,
                    trust_level INTEGER,
                    intent TEXT,
                    intent_confidence REAL,
                    intent_by_hand INTEGER NOT NULL DEFAULT 0,
                    urgency TEXT,
                    urgency_confidence REAL,
                    urgency_by_hand INTEGER NOT NULL DEFAULT 0,
                    shown TEXT NOT NULL DEFAULT '',
                    engine_text TEXT,
                    ending TEXT NOT NULL,
                    engine_outcome TEXT,
                    plan TEXT,
                    detail TEXT,
                    task_id TEXT,
                    engine_state TEXT,
                    first_character_ms REAL,
                    total_ms REAL,
                    input_tokens INTEGER,
                    output_tokens INTEGER,
                    writer_pid INTEGER
                );
                CREATE INDEX exchanges_conversation ON exchanges(conversation_id, seq);
                CREATE INDEX exchanges_open ON exchanges(ending) WHERE ending = 'open';

                -- What an answer being streamed has shown so far, a row per piece, written before the
                -- piece is printed; folded into exchanges.shown when the answer ends (or, after a
                -- kill, by the next process that opens the log).
                CREATE TABLE shown_pieces (
                    n INTEGER PRIMARY KEY AUTOINCREMENT,
                    exchange_seq INTEGER NOT NULL REFERENCES exchanges(seq) ON DELETE CASCADE,
                    shown TEXT NOT NULL,
                    engine_text TEXT NOT NULL
                );
                CREATE INDEX shown_pieces_exchange ON shown_pieces(exchange_seq, n);

                -- Full-text search over what was typed and what was shown. External content: the
                -- text is stored once, in exchanges; the index follows it through the triggers.
                CREATE VIRTUAL TABLE exchanges_search USING fts5(
                    message, shown, content = 'exchanges', content_rowid = 'seq',
                    tokenize = 'unicode61 remove_diacritics 2'
                );
                CREATE TRIGGER exchanges_search_insert AFTER INSERT ON exchanges BEGIN
                    INSERT INTO exchanges_search(rowid, message, shown) VALUES (new.seq, new.message, new.shown);
                END;
                CREATE TRIGGER exchanges_search_delete AFTER DELETE ON exchanges BEGIN
                    INSERT INTO exchanges_search(exchanges_search, rowid, message, shown) VALUES ('delete', old.seq, old.message, old.shown);
                END;
                CREATE TRIGGER exchanges_search_update AFTER UPDATE OF message, shown ON exchanges BEGIN
                    INSERT INTO exchanges_search(exchanges_search, rowid, message, shown) VALUES ('delete', old.seq, old.message, old.shown);
                    INSERT INTO exchanges_search(rowid, message, shown) VALUES (new.seq, new.message, new.shown);
                END;
                """)
        },
        PrivateDatabase.Migration(version: 2) { db in
            try db.execute(sql: """
                -- The pending files whose lines are in the database and that are not removed yet:
                -- a reader killed between its commit and the removal leaves them, and the next
                -- reader removes them without applying their lines a second time.
                CREATE TABLE folded_files (name TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
                """)
        },
        PrivateDatabase.Migration(version: 3) { db in
            try db.execute(sql: """
                -- The conversations `reception logs rm` removed, and when: an exchange that a session
                -- still carrying one on sends afterwards starts it again, where without this it
                -- would be dropped as an exchange of no conversation (`upsert`). Ids and times only.
                CREATE TABLE removed_conversations (id TEXT PRIMARY KEY NOT NULL, removed_at REAL NOT NULL) WITHOUT ROWID;
                """)
            try cleanLoggedText(db)
        },
    ]

    /// What was typed and shown is logged as it was shown (`readable`): text logged before
    /// that, holding escape sequences or control characters, is cleaned the same way once, so
    /// that search finds its words and not what a sequence hid. The search index follows
    /// through its triggers.
    static func cleanLoggedText(_ db: Database) throws {
        // A GLOB class of every character `TerminalText.clean` removes: C0 but tab and newline,
        // DEL, C1, and the bidi overrides and isolates.
        var controls = (0x01...0x1F).filter { $0 != 0x09 && $0 != 0x0A } + [0x7F] + Array(0x80...0x9F)
        controls += Array(0x202A...0x202E) + Array(0x2066...0x2069)
        let pattern = "*[" + String(String.UnicodeScalarView(controls.compactMap(Unicode.Scalar.init))) + "]*"
        let rows = try Row.fetchAll(db, sql: "SELECT seq, message, shown FROM exchanges WHERE message GLOB ?1 OR shown GLOB ?1",
                                    arguments: [pattern])
        for row in rows {
            try db.execute(sql: "UPDATE exchanges SET message = ?, shown = ? WHERE seq = ?",
                           arguments: [TerminalText.clean(row["message"]), TerminalText.clean(row["shown"]), row["seq"] as Int64])
        }
        let titles = try Row.fetchAll(db, sql: "SELECT id, title FROM conversations WHERE title GLOB ?", arguments: [pattern])
        for row in titles {
            try db.execute(sql: "UPDATE conversations SET title = ? WHERE id = ?", arguments: [TerminalText.clean(row["title"]), row["id"] as String])
        }
    }

    /// The newest schema version this program writes.
    public static var schemaVersion: Int { migrations.map(\.version).max() ?? 0 }
}

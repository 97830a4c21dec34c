"""pr's page machine: GNU pr's documented layout rules, kept as its state machine.

Each column reads its input one byte at a time and prints (or, for a single file set in columns
down the page, stores) it as it comes; white space is held back so it can become tabs, separators
wait until the column has text, and a form feed in the input ends the page for its file. The
behaviours that follow from that order (column padding with tabs, numbers inside columns, `-m`
alignment of ended files, `+FIRST` page skipping with its line count) are why this keeps the
machine instead of laying pages out from lists of lines.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ...stdio.streams import StreamReadError
    from ...vfs import FsError

OPEN, FF_FOUND, ON_HOLD, CLOSED = range(4)
ANYWHERE = 0
EOF = -1
LINES_PER_HEADER = 5
LINES_PER_FOOTER = 5
FF, NL, TAB, SP, BS = 12, 10, 9, 32, 8


def _tab_width(width: int, pos: int) -> int:
    return width - pos % width


class Src:
    """One open input: its bytes and where reading is. Columns of one file share it, as they share
    GNU pr's FILE; a read error shows when the input is first read (fopen of a directory works)."""

    __slots__ = ("data", "pos", "error")

    def __init__(self, data: bytes, error: FsError | StreamReadError | None = None) -> None:
        self.data = data
        self.pos = 0
        self.error = error

    def getc(self) -> int:
        pos = self.pos
        if pos < len(self.data):
            self.pos = pos + 1
            return self.data[pos]
        return EOF

    def ungetc(self, c: int) -> None:
        if c != EOF:
            self.pos -= 1

    def skip_newline(self) -> None:
        """After a form feed: a newline right after it belongs to it."""
        c = self.getc()
        if c != NL:
            self.ungetc(c)


class Col:
    __slots__ = (
        "src",
        "name",
        "status",
        "store",
        "stored_print",
        "numbered",
        "start_position",
        "current_line",
        "lines_stored",
        "lines_to_print",
        "full_page_printed",
    )

    def __init__(self, src: Src | None, name: str) -> None:
        self.src = src
        self.name = name
        self.status = OPEN
        self.store = False  # characters go to the store (columns down) instead of the page
        self.stored_print = False  # the column prints stored lines
        self.numbered = False
        self.start_position = 0
        self.current_line = 0
        self.lines_stored = 0
        self.lines_to_print = 0
        self.full_page_printed = False


class Fatal(Exception):
    """A read error: pr stops with `pr: NAME: strerror`."""

    def __init__(self, name: str, error: FsError | StreamReadError) -> None:
        super().__init__(name)
        self.name = name
        self.error = error


class Settings:
    """What the options set (pr's globals before the first file)."""

    def __init__(self) -> None:
        self.columns = 1
        self.explicit_columns = False
        self.first_page = 0
        self.last_page = 0  # 0: no last page
        self.across = False
        self.storing = True
        self.balance = False
        self.cntrl_prefix = False
        self.esc_sequence = False
        self.double_space = False
        self.date_format: str | None = None
        self.untabify = False
        self.input_tab_char = TAB
        self.input_tab = 8
        self.form_feed = False
        self.custom_header: str | None = None
        self.tabify = False
        self.output_tab_char = TAB
        self.output_tab = 8
        self.join_lines = False
        self.lines_per_page = 66
        self.parallel = False
        self.numbered = False
        self.number_separator = TAB
        self.chars_per_number = 5
        self.skip_count = True
        self.start_line_num = 1
        self.margin = 0
        self.ignore_failed_opens = False
        self.use_col_separator = False
        self.col_sep = b""
        self.extremities = True
        self.keep_ff = False
        self.chars_per_line = 72
        self.truncate = False


class Machine:
    """One run of pr over its files: `print_files` for each batch (a file, or all with -m)."""

    def __init__(
        self,
        s: Settings,
        write: Callable[[bytes], None],
        warn: Callable[[str], None],
        tick: Callable[[], None],
    ) -> None:
        self.s = s
        self.write = write
        self.warn = warn
        self.tick = tick
        self.out = bytearray()
        self.cols: list[Col] = []
        self.lines_per_body = 0
        self.chars_per_column = 0
        self.number_width = 0
        self.line_count = 1
        self.line_number = 0
        self.page_number = 0
        self.files_ready = 0
        self.output_position = 0
        self.input_position = 0
        self.spaces_not_printed = 0
        self.separators_not_printed = 0
        self.padding_not_printed = 0
        self.pad_vertically = False
        self.print_a_header = False
        self.print_a_ff = False
        self.align_empty_cols = False
        self.empty_line = False
        self.ff_only = False
        self.last_line = False
        self.buff = bytearray()
        self.line_vector: list[int] = []
        self.end_vector: list[int] = []
        self.date_text = b""
        self.file_text = b""
        self.header_width = 0
        self.clump = bytearray()

    # ------------------------------------------------------------ output

    def put(self, data: bytes | bytearray) -> None:
        out = self.out
        out += data
        if len(out) >= 65536:
            self.flush()

    def flush(self) -> None:
        if self.out:
            self.tick()
            self.write(bytes(self.out))
            self.out = bytearray()

    def put_run(self, byte: bytes, count: int) -> None:
        """`count` copies of one byte, in pieces (a page of `-l 2000000000` is that many newlines)."""
        while count > 0:
            n = min(count, 65536)
            self.put(byte * n)
            count -= n

    # ------------------------------------------------------------ set-up

    def init_parameters(self, number_of_files: int) -> None:
        s = self.s
        body = s.lines_per_page - LINES_PER_HEADER - LINES_PER_FOOTER
        if body <= 0:
            s.extremities = False
            s.keep_ff = True
        if not s.extremities:
            body = s.lines_per_page
        if s.double_space:
            body //= 2
        self.lines_per_body = body
        if number_of_files == 0:
            s.parallel = False
        if s.parallel:
            s.columns = number_of_files
        if s.storing:
            s.balance = True
        if s.columns > 1:
            if not s.use_col_separator:
                s.col_sep = b"\t" if s.join_lines else b" "
                s.use_col_separator = True
            elif not s.join_lines and s.col_sep == b"\t":
                # a TAB separator means nothing where columns are aligned
                s.col_sep = b" "
            s.truncate = True
            if s.col_sep != b"\t":
                s.untabify = True
            s.tabify = True
        else:
            s.storing = False
        if s.join_lines:
            s.truncate = False
        used_by_number = 0
        if s.numbered:
            self.line_count = s.start_line_num
            if s.number_separator == TAB:
                self.number_width = s.chars_per_number + _tab_width(8, s.chars_per_number)
            else:
                self.number_width = s.chars_per_number + 1
            if s.parallel:  # the number stands before the first column only
                used_by_number = self.number_width
        sep_chars = (s.columns - 1) * len(s.col_sep)
        useful = max(0, s.chars_per_line - used_by_number - sep_chars)
        self.chars_per_column = useful // s.columns
        if self.chars_per_column < 1:
            raise ValueError("page width too narrow")

    def init_header(self, text: bytes, date: bytes) -> None:
        self.date_text = date
        self.file_text = text
        self.header_width = self.s.chars_per_line - _width(date) - _width(text)

    def init_funcs(self) -> None:
        s = self.s
        h = s.margin
        sep = len(s.col_sep)
        if not s.truncate:
            h_next = ANYWHERE
        elif s.parallel and s.numbered:  # the first column grows by the number
            h_next = h + self.chars_per_column + self.number_width
        else:
            h_next = h + self.chars_per_column
        h += sep
        cols = self.cols
        for i, p in enumerate(cols, 1):
            last = i == len(cols)
            stored = s.storing and (not last or s.balance)
            p.store = stored
            p.stored_print = stored
            p.numbered = s.numbered and (not s.parallel or i == 1)
            p.start_position = h
            if last:
                break
            if not s.truncate:
                h = h_next = ANYWHERE
            else:
                h = h_next + sep
                h_next = h + self.chars_per_column

    # ------------------------------------------------------------ files

    def close_file(self, p: Col) -> None:
        if p.status == CLOSED:
            return
        if p.src is not None and p.src.error is not None:
            raise Fatal(p.name, p.src.error)
        if not self.s.parallel:
            for q in self.cols:
                q.status = CLOSED
                if q.lines_stored == 0:
                    q.lines_to_print = 0
        else:
            p.status = CLOSED
            p.lines_to_print = 0
        self.files_ready -= 1

    def hold_file(self, p: Col) -> None:
        """A form feed: the file waits for the next page."""
        if not self.s.parallel:
            for q in self.cols:
                q.status = FF_FOUND if self.s.storing else ON_HOLD
        else:
            p.status = ON_HOLD
        p.lines_to_print = 0
        self.files_ready -= 1

    def reset_status(self) -> None:
        for p in self.cols:
            if p.status == ON_HOLD:
                p.status = OPEN
                self.files_ready += 1
        if self.s.storing:
            self.files_ready = 0 if self.cols[0].status == CLOSED else 1

    def cols_ready(self) -> int:
        storing = self.s.storing
        n = 0
        for q in self.cols:
            if (
                q.status == OPEN
                or q.status == FF_FOUND
                or (storing and q.lines_stored > 0 and q.lines_to_print > 0)
            ):
                n += 1
        return n

    # ------------------------------------------------------------ pages

    def run(self) -> None:
        """Skip to the first page asked for, then print every page."""
        s = self.s
        if s.storing:
            self.buff = bytearray()
        if s.first_page > 1:
            if not self.skip_to_page(s.first_page):
                return
            self.page_number = s.first_page
        else:
            self.page_number = 1
        self.init_funcs()
        self.line_number = self.line_count
        # `-l 11 -d` leaves no line for text: GNU pr turns pages forever, so each page is a tick
        while self.print_page():
            self.tick()

    def skip_to_page(self, page: int) -> bool:
        cols = self.cols
        n = 1
        while n < page:
            for _ in range(1, self.lines_per_body):
                self.tick()
                if all(p.status != OPEN for p in cols):
                    break  # the page's other lines would read nothing
                for j, p in enumerate(cols, 1):
                    if p.status == OPEN:
                        self.skip_read(p, j)
            self.last_line = True
            for j, p in enumerate(cols, 1):
                if p.status == OPEN:
                    self.skip_read(p, j)
            if self.s.storing:
                for p in cols:
                    if p.status != CLOSED:
                        p.status = ON_HOLD
            self.reset_status()
            self.last_line = False
            if self.files_ready < 1:
                self.flush()
                self.warn(f"starting page number {page} exceeds page count {n}")
                break
            n += 1
        return self.files_ready > 0

    def skip_read(self, p: Col, column_number: int) -> None:
        src = p.src
        assert src is not None
        c = src.getc()
        if c == FF and p.full_page_printed:
            # a form feed right after a full page makes no empty page
            c = src.getc()
            if c == NL:
                c = src.getc()
        p.full_page_printed = False
        single_ff = c == FF
        if self.last_line:
            p.full_page_printed = True
        while c != NL:
            if c == FF:
                if self.last_line:
                    if not self.s.parallel:
                        for q in self.cols:
                            q.full_page_printed = False
                    else:
                        p.full_page_printed = False
                src.skip_newline()
                self.hold_file(p)
                break
            if c == EOF:
                self.close_file(p)
                break
            c = src.getc()
        if self.s.skip_count and (not self.s.parallel or column_number == 1) and not single_ff:
            self.line_count += 1

    def init_page(self) -> None:
        s = self.s
        if s.storing:
            self.store_columns()
            for p in self.cols[:-1]:
                p.lines_to_print = p.lines_stored
            last = self.cols[-1]
            if s.balance:
                last.lines_to_print = last.lines_stored
            else:
                last.lines_to_print = self.lines_per_body if last.status == OPEN else 0
        else:
            for p in self.cols:
                p.lines_to_print = self.lines_per_body if p.status == OPEN else 0

    def print_page(self) -> bool:
        s = self.s
        self.init_page()
        if self.cols_ready() == 0:
            return False
        if s.extremities:
            self.print_a_header = True
        self.pad_vertically = False
        pv = False
        left = self.lines_per_body * (2 if s.double_space else 1)
        cols = self.cols
        while left > 0 and self.cols_ready() > 0:
            self.tick()
            self.output_position = 0
            self.spaces_not_printed = 0
            self.separators_not_printed = 0
            self.pad_vertically = False
            self.align_empty_cols = False
            self.empty_line = True
            for p in cols:
                self.tick()
                self.input_position = 0
                if p.lines_to_print > 0 or p.status == FF_FOUND:
                    self.ff_only = False
                    self.padding_not_printed = p.start_position
                    done = self.print_stored(p) if p.stored_print else self.read_line(p)
                    if not done:
                        self.read_rest_of_line(p)
                    pv |= self.pad_vertically
                    p.lines_to_print -= 1
                    if p.lines_to_print <= 0 and self.cols_ready() == 0:
                        break
                    if s.parallel and p.status != OPEN:
                        if self.empty_line:
                            self.align_empty_cols = True
                        elif p.status == CLOSED or (p.status == ON_HOLD and self.ff_only):
                            self.align_column(p)
                elif s.parallel:
                    if self.empty_line:
                        self.align_empty_cols = True
                    else:
                        self.align_column(p)
                if s.use_col_separator:
                    self.separators_not_printed += 1
            if self.pad_vertically:
                self.put(b"\n")
                left -= 1
            if self.cols_ready() == 0 and not s.extremities:
                break
            if s.double_space and pv:
                self.put(b"\n")
                left -= 1
        if left == 0:
            for p in cols:
                if p.status == OPEN:
                    p.full_page_printed = True
        self.pad_vertically = pv
        if pv and s.extremities:
            if s.form_feed:
                self.put(b"\f")
            else:
                self.put_run(b"\n", left + LINES_PER_FOOTER)
        elif s.keep_ff and self.print_a_ff:
            self.put(b"\f")
            self.print_a_ff = False
        self.page_number += 1
        if s.last_page and s.last_page < self.page_number:
            return False
        self.reset_status()
        return True

    def print_header(self) -> None:
        s = self.s
        self.output_position = 0
        self.pad_across_to(s.margin)
        self.print_white_space()
        page_text = f"Page {self.page_number}".encode()
        avail = max(0, self.header_width - len(page_text))
        lhs = avail >> 1
        rhs = avail - lhs
        margin = b" " * s.margin
        self.put(
            b"\n\n"
            + margin
            + self.date_text
            + b" " * max(lhs, 1)
            + self.file_text
            + b" " * max(rhs, 1)
            + page_text
            + b"\n\n\n"
        )
        self.print_a_header = False
        self.output_position = 0

    # ------------------------------------------------------------ lines

    def form_feed_in_line(self, p: Col) -> None:
        """A form feed after a line's text: the line ends, the file waits for the next page."""
        assert p.src is not None
        p.src.skip_newline()
        if self.s.keep_ff:
            self.print_a_ff = True
        self.hold_file(p)

    def read_rest_of_line(self, p: Col) -> None:
        """A truncated line: read to its end, printing nothing."""
        src = p.src
        assert src is not None
        while True:
            c = src.getc()
            if c == NL:
                return
            if c == FF:
                self.form_feed_in_line(p)
                return
            if c == EOF:
                self.close_file(p)
                return

    def read_line(self, p: Col) -> bool:
        """Print (or store) one line of p's input; False when it was cut at the column's width."""
        s = self.s
        src = p.src
        assert src is not None
        c = src.getc()
        last_input_position = self.input_position
        if c == FF and p.full_page_printed:
            c = src.getc()
            if c == NL:
                c = src.getc()
        p.full_page_printed = False
        if c == FF:
            src.skip_newline()
            self.ff_only = True
            if self.print_a_header and not s.storing:
                self.pad_vertically = True
                self.print_header()
            elif s.keep_ff:
                self.print_a_ff = True
            self.hold_file(p)
            return True
        if c == EOF:
            self.close_file(p)
            return True
        chars = b""
        if c != NL:
            chars = self.char_to_clump(c)
            if s.truncate and self.input_position > self.chars_per_column:
                self.input_position = last_input_position
                return False
        if not p.store:
            self.pad_vertically = True
            if self.print_a_header and not s.storing:
                self.print_header()
            if s.parallel and self.align_empty_cols:
                # the line starts with ended files' empty columns
                k = self.separators_not_printed
                self.separators_not_printed = 0
                for q in self.cols[:k]:
                    self.align_column(q)
                    self.separators_not_printed += 1
                self.padding_not_printed = p.start_position
                self.spaces_not_printed = self.chars_per_column if s.truncate else 0
                self.align_empty_cols = False
            self.pad_to_column()
        if p.numbered:
            self.add_line_number(p)
        self.empty_line = False
        if c == NL:
            return True
        self.emit_all(p, chars)
        while True:
            c = src.getc()
            if c == NL:
                return True
            if c == FF:
                self.form_feed_in_line(p)
                return True
            if c == EOF:
                self.close_file(p)
                return True
            last_input_position = self.input_position
            chars = self.char_to_clump(c)
            if s.truncate and self.input_position > self.chars_per_column:
                self.input_position = last_input_position
                return False
            self.emit_all(p, chars)

    def pad_to_column(self) -> None:
        """The padding and separators owed before a column's text."""
        sep = len(self.s.col_sep)
        if sep < self.padding_not_printed:
            self.pad_across_to(self.padding_not_printed - sep)
            self.padding_not_printed = ANYWHERE
        if self.s.use_col_separator:
            self.print_sep_string()

    def align_column(self, p: Col) -> None:
        """An ended file's empty column under -m: its padding, separator and number."""
        self.padding_not_printed = p.start_position
        self.pad_to_column()
        if p.numbered:
            self.add_line_number(p)

    def print_stored(self, p: Col) -> bool:
        s = self.s
        line = p.current_line
        p.current_line += 1
        self.pad_vertically = True
        if self.print_a_header:
            self.print_header()
        if p.status == FF_FOUND:
            for q in self.cols:
                q.status = ON_HOLD
            if self.cols[0].lines_to_print <= 0:
                if not s.extremities:
                    self.pad_vertically = False
                return True  # a header only
        self.pad_to_column()
        first, last = self.line_vector[line], self.line_vector[line + 1]
        for c in self.buff[first:last]:
            self.print_char(c)
        if self.spaces_not_printed == 0:
            self.output_position = p.start_position + self.end_vector[line]
            if p.start_position - len(s.col_sep) == s.margin:
                self.output_position -= len(s.col_sep)
        return True

    def store_columns(self) -> None:
        s = self.s
        self.buff = bytearray()
        line_vector: list[int] = []
        end_vector: list[int] = []
        buff_start = 0
        cols = self.cols
        last_col = len(cols) if s.balance else len(cols) - 1
        for p in cols[:last_col]:
            p.lines_stored = 0
        for p in cols[:last_col]:
            if not self.files_ready:
                break
            p.current_line = len(line_vector)
            for _ in range(self.lines_per_body):
                self.tick()
                if not self.files_ready:
                    break
                if p.status != OPEN:
                    continue
                self.input_position = 0
                if not self.read_line(p):
                    self.read_rest_of_line(p)
                if p.status == OPEN or buff_start != len(self.buff):
                    p.lines_stored += 1
                    line_vector.append(buff_start)
                    end_vector.append(self.input_position)
                    buff_start = len(self.buff)
        line_vector.append(buff_start)
        self.line_vector = line_vector
        self.end_vector = end_vector
        if s.balance:
            total = len(end_vector)
            first = 0
            n = len(cols)
            for i, p in enumerate(cols, 1):
                lines = total // n + (1 if i <= total % n else 0)
                p.lines_stored = lines
                p.current_line = first
                first += lines

    def add_line_number(self, p: Col) -> None:
        s = self.s
        width = s.chars_per_number
        # the low digits are kept when a number outgrows its field
        text = f"{self.line_number:>{width}}".encode()[-width:]
        self.line_number += 1
        self.emit_all(p, text)
        if s.columns > 1:
            if s.number_separator == TAB:
                self.emit_all(p, b" " * (self.number_width - width))
            else:
                self.emit(p, s.number_separator)
        else:
            self.emit(p, s.number_separator)
            if s.number_separator == TAB:
                pos = self.output_position
                self.output_position = pos + _tab_width(s.output_tab, pos)
        if s.truncate and not s.parallel:
            self.input_position += self.number_width

    def pad_across_to(self, position: int) -> None:
        if self.s.tabify:
            self.spaces_not_printed = position - self.output_position
        else:
            if position > self.output_position:
                self.put_run(b" ", position - self.output_position)
            self.output_position = position

    def print_white_space(self) -> None:
        h_old = self.output_position
        goal = h_old + self.spaces_not_printed
        tab, tab_char = self.s.output_tab, bytes((self.s.output_tab_char,))
        tabs = 0
        while goal - h_old > 1:
            h_new = h_old + _tab_width(tab, h_old)
            if h_new > goal:
                break
            tabs += 1
            h_old = h_new
        if tabs:
            self.put_run(tab_char, tabs)
        if goal > h_old:
            self.put_run(b" ", goal - h_old)
        self.output_position = goal
        self.spaces_not_printed = 0

    def print_sep_string(self) -> None:
        sep = self.s.col_sep
        if self.separators_not_printed <= 0:
            if self.spaces_not_printed > 0:
                self.print_white_space()
            return
        # the string's length is spent by the first separator: later ones print nothing of it
        remaining = len(sep)
        k = 0
        while self.separators_not_printed > 0:
            while remaining > 0:
                remaining -= 1
                c = sep[k]
                k += 1
                if c == SP:
                    self.spaces_not_printed += 1
                else:
                    if self.spaces_not_printed > 0:
                        self.print_white_space()
                    self.put(bytes((c,)))
                    self.output_position += 1
            if self.spaces_not_printed > 0:
                self.print_white_space()
            self.separators_not_printed -= 1

    def emit_all(self, p: Col, data: bytes) -> None:
        for c in data:
            self.emit(p, c)

    def emit(self, p: Col, c: int) -> None:
        if p.store:
            self.buff.append(c)
        else:
            self.print_char(c)

    def print_char(self, c: int) -> None:
        if self.s.tabify:
            if c == SP:
                self.spaces_not_printed += 1
                return
            if self.spaces_not_printed > 0:
                self.print_white_space()
            if 0x20 <= c < 0x7F:
                self.output_position += 1
            elif c == BS:
                self.output_position -= 1
        self.put(bytes((c,)))

    def char_to_clump(self, c: int) -> bytes:
        """The bytes that print c (a tab as spaces under -e, -c/-v notations); moves input_position."""
        s = self.s
        per_tab = s.input_tab if c == s.input_tab_char else 8
        if c == s.input_tab_char or c == TAB:
            width = _tab_width(per_tab, self.input_position)
            clump = b" " * width if s.untabify else bytes((c,))
        elif not 0x20 <= c < 0x7F:
            if s.esc_sequence or (s.cntrl_prefix and c >= 0o200):
                width = 4
                clump = b"\\%03o" % c
            elif s.cntrl_prefix:
                width = 2
                clump = bytes((0x5E, c ^ 0o100))
            elif c == BS:
                width = -1
                clump = bytes((c,))
            else:
                width = 0
                clump = bytes((c,))
        else:
            width = 1
            clump = bytes((c,))
        if width < 0 and self.input_position == 0:
            clump = b""
        elif width < 0 and self.input_position <= -width:
            self.input_position = 0
        else:
            self.input_position += width
        return clump


def _width(text: bytes) -> int:
    """Columns a header text takes (mbswidth: each character one column, as pr counts it)."""
    return len(text.decode("utf-8", "replace"))

"""Stack traces and HTML error pages recognised in result texts, and their near misses."""

from __future__ import annotations

import time

import pytest

from jsoncontract.pipeline.leaks import LANGUAGES, html_error_page, stack_traces

PYTHON = """Traceback (most recent call last):
  File "/srv/app/orders.py", line 41, in lookup
    row = db.fetch(order_id)
  File "/srv/app/db.py", line 12, in fetch
    raise KeyError(key)
KeyError: 'ORD-1'"""

JAVASCRIPT = """TypeError: Cannot read properties of undefined (reading 'total')
    at summarise (/srv/app/orders.js:27:19)
    at Object.handler (file:///srv/app/server.mjs:88:12)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"""

JAVA = """java.lang.IllegalStateException: order is closed
\tat com.acme.orders.OrderService.refund(OrderService.java:118)
\tat com.acme.orders.OrderController.post(OrderController.kt:52)
\tat java.base/java.lang.Thread.run(Thread.java:1583)"""

GO = """panic: runtime error: invalid memory address or nil pointer dereference
goroutine 18 [running]:
main.(*Server).refund(0x0, {0xc0000a2000, 0x5})
\t/srv/app/refund.go:42 +0x1d
main.main()
\t/srv/app/main.go:17 +0x65"""

DOTNET = """System.NullReferenceException: Object reference not set to an instance of an object
   at Acme.Orders.OrderService.Refund(String orderId) in C:\\src\\Orders\\OrderService.cs:line 77
   at Acme.Orders.Api.Refund.Handle(HttpContext context) in C:\\src\\Api\\Refund.cs:line 23"""

TRACES = {"python": PYTHON, "javascript": JAVASCRIPT, "java": JAVA, "go": GO, "dotnet": DOTNET}


@pytest.mark.parametrize("language", sorted(TRACES))
def test_each_runtime_trace_is_named_by_its_language(language: str) -> None:
    found = stack_traces(TRACES[language], "/content/0/text")
    assert [t.language for t in found] == [language]
    assert found[0].frames >= 2
    assert found[0].pointer == "/content/0/text"
    assert found[0].label == LANGUAGES[language]


@pytest.mark.parametrize("language", sorted(TRACES))
def test_a_trace_inside_json_text_with_crlf_line_ends(language: str) -> None:
    text = TRACES[language].replace("\n", "\r\n")
    assert [t.language for t in stack_traces(text)] == [language]


def test_one_python_frame_counts_with_its_header() -> None:
    text = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError'
    assert [(t.language, t.frames) for t in stack_traces(text)] == [("python", 1)]


@pytest.mark.parametrize(
    "text",
    [
        "The order ships at 10:30:00 from the warehouse at Main St.",
        "Look at the file app.py, line 3 for details",  # no File "..." frame
        "meet at noon (Room 4)\nthen at lunch (Cafe)",  # at ... (...) without a source file
        "see main.go:12 for the handler",  # one Go position, no goroutine header
        "at com.acme.Orders.get(Orders.java:42)",  # one Java frame, no header
        '{"status": "ok", "eta": "12:30:45"}',
        "",
    ],
)
def test_near_misses_are_no_traces(text: str) -> None:
    assert stack_traces(text) == []


def test_hostile_inputs_are_read_in_linear_time() -> None:
    hostile = [
        "at " + "a" * 200_000,
        "\tat " + "x." * 100_000 + "(",
        'File "' + '"' * 200_000,
        ("\t" + "a" * 600 + ".go:1\n") * 300,
        "at " + ":1" * 100_000,
        "<html>" + "<title>" * 50_000,
    ]
    started = time.perf_counter()
    for text in hostile:
        stack_traces(text)
        html_error_page(text, failed=True)
    assert time.perf_counter() - started < 3


PAGE = """<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"""


def test_an_html_error_page_is_named_by_its_title() -> None:
    page = html_error_page(PAGE, "/content")
    assert page is not None
    assert (page.title, page.pointer) == ("502 Bad Gateway", "/content")


def test_any_html_page_is_the_error_of_a_failed_result() -> None:
    page = html_error_page("<html><body>Sorry!</body></html>", failed=True)
    assert page is not None and page.title is None
    assert html_error_page("<html><body>Sorry!</body></html>") is None


@pytest.mark.parametrize(
    "text",
    [
        "<html><head><title>Order confirmation</title></head><body>Thanks</body></html>",
        "Use <b>bold</b> for emphasis: error messages are shown in red",
        '{"html": "<!DOCTYPE html><title>500 Internal Server Error</title>"}',
    ],
)
def test_pages_that_are_not_errors_and_html_inside_data(text: str) -> None:
    assert html_error_page(text) is None


def test_a_secret_in_a_title_is_masked() -> None:
    page = html_error_page(
        "<html><title>Error: token sk-proj-abcdefghijklmnopqrstuvwxyz012345</title></html>"
    )
    assert page is not None and page.title is not None
    assert "sk-proj" not in page.title and "<redacted openai-api-key" in page.title


@pytest.mark.parametrize(
    "text",
    [
        *TRACES.values(),
        PAGE,
        'File "x.py"',
        "C:\\temp\\report.txt",
        "a \\u003c b",
        "x < y",
        "goroutine 7",
        "meet at noon",
        "main.go:12",
        "Traceback",
        '{"nested": "File \\"a\\""}',
        "plain answer, nothing to see",
        '{"status": "ok", "count": 3}',
    ],
)
def test_a_json_text_tells_when_no_string_of_the_value_may_leak(text: str) -> None:
    import orjson

    from jsoncontract.pipeline.leaks import json_may_leak, may_leak

    values = [
        [{"type": "text", "text": text}],
        {"a": [1, {"b": text}], "c": 'quote " here'},
        {"Traceback?": 1, "v": [text, text]},
    ]
    for value in values:
        if may_leak(text):
            assert json_may_leak(orjson.dumps(value).decode()), value
    assert not json_may_leak(orjson.dumps([{"type": "text", "text": '{"a": "b"}'}]).decode())

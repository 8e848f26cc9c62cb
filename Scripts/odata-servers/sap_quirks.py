"""WSGI middleware giving a test service SAP Gateway's quirks (the `gateway` and `s4` shapes).

- A JSON body's v2 `"__count": 40` becomes `"__count": "40"`, as Gateway sends it.
- Every error (4xx/5xx) becomes Gateway's JSON envelope with `/IWBEP/CM_MGW_RT/020` (404) or
  `/IWBEP/CM_MGW_RT/004` (anything else), `message: {"lang": "en", "value": …}` carrying the
  original message when it can be read, and an `innererror` with a transaction id.

Only JSON success bodies are touched: `$metadata` (XML) and `/$count` (text/plain) pass as they
are.
"""

import datetime
import json
import re
import uuid
import xml.etree.ElementTree as ElementTree

NOT_FOUND_CODE = "/IWBEP/CM_MGW_RT/020"
OTHER_ERROR_CODE = "/IWBEP/CM_MGW_RT/004"

_COUNT = re.compile(rb'("__count"\s*:\s*)(\d+)')


def _header(headers, name):
    """The value of header `name` (any case) in a WSGI header list, or ""."""
    for key, value in headers:
        if key.lower() == name.lower():
            return value
    return ""


def _is_json(headers):
    return _header(headers, "Content-Type").split(";")[0].strip().lower() == "application/json"


def original_message(body):
    """The message text of an OData error body (v4 or v2 JSON, or v2 XML), or None."""
    try:
        error = json.loads(body.decode("utf-8"))["error"]
        message = error["message"]
        if isinstance(message, dict):
            message = message["value"]
        return message if isinstance(message, str) and message else None
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return None
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] == "message" and element.text:
            return element.text
    return None


def sap_error_body(status, body, service_id="GWSAMPLE_BASIC"):
    """SAP Gateway's error envelope for an error response `status` ("404 Not Found") of the
    service `service_id`."""
    code, _, reason = status.partition(" ")
    message = original_message(body) or reason or code
    now = datetime.datetime.now(datetime.timezone.utc)
    envelope = {
        "error": {
            "code": NOT_FOUND_CODE if code == "404" else OTHER_ERROR_CODE,
            "message": {"lang": "en", "value": message},
            "innererror": {
                "application": {
                    "component_id": "",
                    "service_namespace": "/IWBEP/",
                    "service_id": service_id,
                    "service_version": "0001",
                },
                "transactionid": uuid.uuid4().hex.upper(),
                "timestamp": now.strftime("%Y%m%d%H%M%S.") + "%07d" % (now.microsecond * 10),
                "errordetails": [],
            },
        }
    }
    return json.dumps(envelope, separators=(",", ":")).encode("utf-8")


def string_counts(body):
    """A JSON body with every `"__count": <number>` turned into `"__count": "<number>"`."""
    return _COUNT.sub(lambda match: match.group(1) + b'"' + match.group(2) + b'"', body)


class SapGatewayQuirks:
    """Wraps a WSGI OData service, buffering each answer to rewrite it as Gateway would;
    `service_id` is the name errors give the service, such as `GWSAMPLE_BASIC`."""

    def __init__(self, app, service_id="GWSAMPLE_BASIC"):
        self.app = app
        self.service_id = service_id

    def __call__(self, environ, start_response):
        answer = {}
        chunks = []

        def capture(status, headers, exc_info=None):
            answer["status"], answer["headers"] = status, list(headers)
            return chunks.append

        result = self.app(environ, capture)
        try:
            chunks.extend(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        status, headers = answer["status"], answer["headers"]
        body = b"".join(chunks)
        if int(status.split(" ", 1)[0]) >= 400:
            body = sap_error_body(status, body, self.service_id)
            headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
            headers.append(("Content-Type", "application/json"))
        elif _is_json(headers):
            body = string_counts(body)
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        headers.append(("Content-Length", str(len(body))))
        start_response(status, headers)
        return [body]


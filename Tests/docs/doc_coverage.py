"""The reference pages cover the program: every subcommand and flag `homegate help` lists is in
docs/cli.md, every setting (and its HOMEGATE_* variable) in docs/configuration.md, every request
command and topic family in docs/mqtt-api.md, every route of web/openapi.yaml in docs/http-api.md.
Run by Tests/docs/test_docs.py; `check(bin_dir)` returns the failures."""
import glob, os, re, subprocess, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    return open(os.path.join(ROOT, path)).read()


def sections(text, level="## "):
    """{heading: body} of a markdown page's sections at one level."""
    found, current = {}, None
    for line in text.split("\n"):
        if line.startswith(level):
            current = line[len(level):].strip()
            found[current] = ""
        elif current is not None:
            found[current] += line + "\n"
    return found


def help_text(homegate, *args):
    return subprocess.run([homegate, *args], capture_output=True, text=True, env={"PATH": os.environ["PATH"]}).stdout


def subcommands(homegate):
    """{name: [flags]} from `homegate --help` and `homegate help <name>`."""
    top = help_text(homegate, "--help")
    names = re.findall(r"^  ([a-z][a-z-]*)\s", top.split("SUBCOMMANDS:")[1], re.M)
    result = {}
    for name in names:
        text = help_text(homegate, "help", name)
        options = text.split("OPTIONS:")[1] if "OPTIONS:" in text else ""
        result[name] = sorted(set(re.findall(r"(--[a-z][a-z-]*)", options)) - {"--help", "--version"})
    result[""] = sorted(set(re.findall(r"(--[a-z][a-z-]*)", top.split("SUBCOMMANDS:")[0])))
    return result


def cli(homegate):
    failures, page = [], read("docs/cli.md")
    parts = sections(page)
    for name, flags in subcommands(homegate).items():
        if not name:
            for flag in flags:
                if f"`homegate {flag}`" not in page and f"homegate {flag}" not in page:
                    failures.append(f"docs/cli.md: `homegate {flag}` is not described")
            continue
        heading = next((h for h in parts if h.startswith(f"`homegate {name}")), None)
        if heading is None:
            failures.append(f"docs/cli.md: no section '## `homegate {name}`' for the subcommand {name}")
            continue
        for flag in flags:
            if flag not in parts[heading]:
                failures.append(f"docs/cli.md, `homegate {name}`: the flag {flag} is not described")
        if "docker compose " not in parts[heading]:
            failures.append(f"docs/cli.md, `homegate {name}`: no `docker compose` form")
    for status in ("0", "1", "2", "78"):
        if f"| {status} |" not in page:
            failures.append(f"docs/cli.md: exit status {status} is not in the table of exit statuses")
    return failures


def settings(homegate):
    """Every key of the configuration: the names in GatewayConfiguration+Loading.swift, and the
    log components the program itself lists when given a wrong one."""
    source = "".join(open(p).read() for p in glob.glob(os.path.join(ROOT, "Sources/Gateway/GatewayConfiguration*.swift")))
    keys = set(re.findall(r'(?:text|boolean|integer|decimal|selectors)\("([a-z_.]+)"', source))
    keys |= set(re.findall(r'Key\(name: "([a-z_.]+)"', source))
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as bad:
        bad.write("log_levels: { zzz: debug }\n")
        bad.flush()
        out = subprocess.run([homegate, "validate", "--config", bad.name], capture_output=True, text=True).stderr
    found = re.search(r"unknown component \(expected one of ([a-z, _]+)\)", out)
    if not found:
        return [f"cannot read the log components from homegate: {out.strip()}"], []
    keys |= {f"log_levels.{c.strip()}" for c in found.group(1).split(",")}
    return [], sorted(keys)


def configuration(homegate):
    failures, keys = settings(homegate)
    page = read("docs/configuration.md")
    for key in keys:
        variable = "HOMEGATE_" + key.upper().replace(".", "_")
        if f"`{key}`" not in page:
            failures.append(f"docs/configuration.md: the setting `{key}` is not described")
        if variable not in page:
            failures.append(f"docs/configuration.md: the variable {variable} (of `{key}`) is not named")
    return failures


def mqtt():
    failures, page = [], read("docs/mqtt-api.md")
    source = "".join(open(p).read() for p in glob.glob(os.path.join(ROOT, "Sources/Gateway*/**/*.swift"), recursive=True))
    names = re.search(r"static let names: \[String\] = \[(.*?)\]", source, re.S)
    if not names:
        return ["cannot find the request commands (HomeCommand.names) in Sources/Gateway or Sources/GatewayCore"]
    commands = re.findall(r'"([a-z_/]+)"', names.group(1)) + ["health"]
    headings = {name for line in re.findall(r"^#{2,4} .*$", page, re.M) for name in re.findall(r"`([a-z_/]+)`", line)}
    for command in commands:
        if command not in headings:
            failures.append(f"docs/mqtt-api.md: the request command `{command}` has no section")
    families = set(re.findall(r'\\\((?:base|baseTopic)\)/([a-z_]+)', source)) | set(re.findall(r'baseTopic \+ "/([a-z_]+)', source))
    for family in sorted(families):
        if f"homegate/{family}" not in page:
            failures.append(f"docs/mqtt-api.md: the topics homegate/{family}/... are not described")
    return failures


def http():
    import yaml
    failures, page = [], read("docs/http-api.md")
    document = yaml.safe_load(read("web/openapi.yaml"))
    for path, operations in document["paths"].items():
        for method in operations:
            if method not in ("get", "put", "post", "patch", "delete"):
                continue
            shown = path.replace("{", "{").replace("}", "}")
            rows = [line for line in page.split("\n") if f"`{shown}`" in line and method.upper() in line]
            if not rows:
                failures.append(f"docs/http-api.md: {method.upper()} {path} (web/openapi.yaml) is not described")
    return failures


def check(bin_dir):
    homegate = os.path.join(bin_dir, "homegate")
    failures = cli(homegate) + configuration(homegate) + mqtt() + http()
    print(f"reference coverage: {'every subcommand, setting, request and route is documented' if not failures else f'{len(failures)} missing'}")
    return failures

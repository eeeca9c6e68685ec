// A small SPARQL 1.1 Protocol front over an Apache Jena TDB2 database, for kg's tests against Jena.
//
// Debian packages Jena 4.5 (libapache-jena-java: ARQ, TDB2, SHACL) but not Fuseki, so the tests
// compile this file with javac against the packaged jars and run it on a loopback port. It speaks
// what kg and the tests use of the protocol, nothing more:
//
//   GET|POST /query   SPARQL query (GET ?query=, a form POST, or a body of application/sparql-query);
//                     SELECT/ASK as application/sparql-results+json (+xml when asked for and JSON
//                     is not: Fuseki's choice for kg's Accept), CONSTRUCT/DESCRIBE as Turtle (or
//                     N-Triples when asked for)
//   GET|POST /no-union/query   the same over the store's own default graph, whatever
//                     --union-default-graph says (a store without the union, beside the one with it)
//   POST /update      SPARQL Update (a form POST of update=, or a body of application/sparql-update),
//                     each request one TDB2 write transaction
//   PUT|GET|DELETE|POST /data?graph=IRI   the Graph Store Protocol on one named graph (N-Triples
//                     or Turtle bodies); a PUT replaces the graph in one transaction
//
// "JenaFront --parse FILE..." only parses each file as a SPARQL 1.1 query (ARQ's parser, as qparse), one
// line of outcome each, and ends: the tests check kg's queries with it in one JVM.
//
// Options: --loc DIR (the TDB2 database; "mem" for one in memory), --port N, --union-default-graph (the default graph read
// as the union of the named graphs: tdb2:unionDefaultGraph, as Fuseki configures it), --timeout-s N
// (a query's overall deadline; an answer past it is HTTP 503). Errors are HTTP 400 (the request's
// fault: Jena's parser message) or 500, as text. Everything is logged to stderr, one line a request.
//
// Not a Fuseki: no authentication, no datasets besides the one, no SERVICE restrictions beyond
// Jena's defaults. Keep it on loopback (the tests bind 127.0.0.1 only).

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.jena.graph.Graph;
import org.apache.jena.graph.Node;
import org.apache.jena.graph.NodeFactory;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryCancelledException;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.QueryParseException;
import org.apache.jena.query.ResultSetFormatter;
import org.apache.jena.query.Syntax;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.riot.RDFParser;
import org.apache.jena.riot.RiotException;
import org.apache.jena.sparql.core.DatasetGraph;
import org.apache.jena.sparql.graph.GraphFactory;
import org.apache.jena.system.Txn;
import org.apache.jena.tdb2.TDB2;
import org.apache.jena.tdb2.TDB2Factory;
import org.apache.jena.update.UpdateAction;
import org.apache.jena.update.UpdateFactory;
import org.apache.jena.update.UpdateRequest;

public final class JenaFront {
    private static Dataset dataset;
    private static long timeoutSeconds = 120;

    /** An answer with its status, media type and body. */
    private record Reply(int status, String type, byte[] body) {
        static Reply text(int status, String message) {
            return new Reply(status, "text/plain; charset=utf-8", (message + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length > 0 && args[0].equals("--parse")) {
            parseEach(args);
            return;
        }
        String location = null;
        int port = 3030;
        boolean union = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--loc" -> location = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--union-default-graph" -> union = true;
                case "--timeout-s" -> timeoutSeconds = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (location == null) {
            throw new IllegalArgumentException("--loc DIR is required");
        }
        // "--loc mem": a TDB2 database in memory (the same engine, no disk syncs at each commit)
        dataset = location.equals("mem") ? TDB2Factory.createDataset() : TDB2Factory.connectDataset(location);
        if (union) {
            dataset.getContext().set(TDB2.symUnionDefaultGraph, true);
        }
        boolean unionDefault = union;  // captured by the handlers
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        server.createContext("/query", exchange -> handle(exchange, (e, p, b) -> query(e, p, b, unionDefault)));
        server.createContext("/no-union/query", exchange -> handle(exchange, (e, p, b) -> query(e, p, b, false)));
        server.createContext("/update", exchange -> handle(exchange, JenaFront::update));
        server.createContext("/data", exchange -> handle(exchange, JenaFront::graphStore));
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        System.err.println("JenaFront on 127.0.0.1:" + port + " over " + location + (union ? " (union default graph)" : ""));
    }

    /** "--parse FILE...": each file parsed as a SPARQL 1.1 query by ARQ's strict parser (as qparse does),
     *  one line each, "FILE<TAB>ok" or "FILE<TAB>error<TAB>message"; no server. */
    private static void parseEach(String[] args) throws IOException {
        for (int i = 1; i < args.length; i++) {
            String text = java.nio.file.Files.readString(java.nio.file.Path.of(args[i]));
            try {
                QueryFactory.create(text, Syntax.syntaxSPARQL_11);
                System.out.println(args[i] + "\tok");
            } catch (QueryParseException err) {
                System.out.println(args[i] + "\terror\t" + err.getMessage().replace('\n', ' '));
            }
        }
    }

    private interface Handler {
        Reply answer(HttpExchange exchange, Map<String, String> params, byte[] body) throws IOException;
    }

    private static void handle(HttpExchange exchange, Handler handler) throws IOException {
        Reply reply;
        try {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Map<String, String> params = form(exchange.getRequestURI().getRawQuery());
            String type = header(exchange, "Content-Type");
            if (type.startsWith("application/x-www-form-urlencoded")) {
                params.putAll(form(new String(body, StandardCharsets.UTF_8)));
            }
            reply = handler.answer(exchange, params, body);
        } catch (QueryParseException | RiotException | IllegalArgumentException err) {
            reply = Reply.text(400, "bad request: " + err.getMessage());
        } catch (QueryCancelledException err) {
            reply = Reply.text(503, "query timed out after " + timeoutSeconds + " s");
        } catch (RuntimeException err) {
            reply = Reply.text(500, err.getClass().getSimpleName() + ": " + err.getMessage());
        }
        System.err.println(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " " + reply.status());
        exchange.getResponseHeaders().set("Content-Type", reply.type());
        exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(reply.body());
        }
    }

    private static String header(HttpExchange exchange, String name) {
        String value = exchange.getRequestHeaders().getFirst(name);
        return value == null ? "" : value.toLowerCase();
    }

    private static Map<String, String> form(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int at = pair.indexOf('=');
            String key = URLDecoder.decode(at < 0 ? pair : pair.substring(0, at), StandardCharsets.UTF_8);
            String value = at < 0 ? "" : URLDecoder.decode(pair.substring(at + 1), StandardCharsets.UTF_8);
            out.put(key, value);
        }
        return out;
    }

    private static Reply query(HttpExchange exchange, Map<String, String> params, byte[] body, boolean union) {
        String method = exchange.getRequestMethod();
        String text = params.get("query");
        if (text == null && method.equals("POST") && header(exchange, "Content-Type").startsWith("application/sparql-query")) {
            text = new String(body, StandardCharsets.UTF_8);
        }
        if (text == null) {
            return Reply.text(400, "no query given");
        }
        Query query = QueryFactory.create(text, Syntax.syntaxSPARQL_11);
        String accept = header(exchange, "Accept");
        return Txn.calculateRead(dataset, () -> {
            try (QueryExecution execution = QueryExecution.create().query(query).dataset(dataset)
                    .set(TDB2.symUnionDefaultGraph, union).timeout(timeoutSeconds, TimeUnit.SECONDS).build()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                if (query.isSelectType()) {
                    if (prefersXml(accept)) {
                        ResultSetFormatter.outputAsXML(out, execution.execSelect());
                        return new Reply(200, "application/sparql-results+xml", out.toByteArray());
                    }
                    ResultSetFormatter.outputAsJSON(out, execution.execSelect());
                    return new Reply(200, "application/sparql-results+json", out.toByteArray());
                }
                if (query.isAskType()) {
                    boolean answer = execution.execAsk();
                    if (prefersXml(accept)) {
                        ResultSetFormatter.outputAsXML(out, answer);
                        return new Reply(200, "application/sparql-results+xml", out.toByteArray());
                    }
                    ResultSetFormatter.outputAsJSON(out, answer);
                    return new Reply(200, "application/sparql-results+json", out.toByteArray());
                }
                Model model = query.isConstructType() ? execution.execConstruct() : execution.execDescribe();
                boolean ntriples = accept.contains("n-triples");
                RDFDataMgr.write(out, model, ntriples ? Lang.NTRIPLES : Lang.TURTLE);
                return new Reply(200, ntriples ? "application/n-triples" : "text/turtle", out.toByteArray());
            }
        });
    }

    /** XML results only for a client that accepts them and not JSON (Fuseki's choice for kg's Accept). */
    private static boolean prefersXml(String accept) {
        return accept.contains("sparql-results+xml") && !accept.contains("sparql-results+json");
    }

    private static Reply update(HttpExchange exchange, Map<String, String> params, byte[] body) {
        if (!exchange.getRequestMethod().equals("POST")) {
            return Reply.text(405, "updates are POSTed");
        }
        String text = params.get("update");
        if (text == null && header(exchange, "Content-Type").startsWith("application/sparql-update")) {
            text = new String(body, StandardCharsets.UTF_8);
        }
        if (text == null) {
            return Reply.text(400, "no update given");
        }
        UpdateRequest request = UpdateFactory.create(text, Syntax.syntaxSPARQL_11);
        Txn.executeWrite(dataset, () -> UpdateAction.execute(request, dataset));
        return new Reply(204, "text/plain", new byte[0]);
    }

    private static Reply graphStore(HttpExchange exchange, Map<String, String> params, byte[] body) {
        String name = params.get("graph");
        if (name == null && !params.containsKey("default")) {
            return Reply.text(400, "give ?graph=IRI or ?default");
        }
        DatasetGraph graphs = dataset.asDatasetGraph();
        Node graph = name == null ? null : NodeFactory.createURI(name);
        String method = exchange.getRequestMethod();
        switch (method) {
            case "GET" -> {
                return Txn.calculateRead(dataset, () -> {
                    Graph found = graph == null ? graphs.getDefaultGraph() : graphs.getGraph(graph);
                    if (graph != null && !graphs.containsGraph(graph)) {
                        return Reply.text(404, "no graph " + name);
                    }
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    RDFDataMgr.write(out, found, Lang.NTRIPLES);
                    return new Reply(200, "application/n-triples", out.toByteArray());
                });
            }
            case "PUT", "POST" -> {
                Graph given = GraphFactory.createDefaultGraph();
                Lang lang = header(exchange, "Content-Type").contains("turtle") ? Lang.TURTLE : Lang.NTRIPLES;
                RDFParser.source(new java.io.ByteArrayInputStream(body)).lang(lang).parse(given);
                Txn.executeWrite(dataset, () -> {
                    Graph target = graph == null ? graphs.getDefaultGraph() : graphs.getGraph(graph);
                    if (method.equals("PUT")) {
                        target.clear();
                    }
                    given.find().forEachRemaining(target::add);
                });
                return new Reply(method.equals("PUT") ? 204 : 200, "text/plain", new byte[0]);
            }
            case "DELETE" -> {
                Txn.executeWrite(dataset, () -> {
                    if (graph == null) {
                        graphs.getDefaultGraph().clear();
                    } else {
                        graphs.removeGraph(graph);
                    }
                });
                return new Reply(204, "text/plain", new byte[0]);
            }
            default -> {
                return Reply.text(405, "method " + method + " not allowed here");
            }
        }
    }

    private JenaFront() {
    }
}

import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local listening on the loopback interface only. DynamoDB Local checks no
 * credentials and has no option to choose its interface: on every interface, anyone who can reach
 * the machine could rewrite the clients table. The engine builds its Jetty server unstarted, so the
 * connector's host is set before it starts.
 *
 * It also exits when its standard input closes: the Node.js process that started it holds the
 * other end, so however that process ends (a crash, SIGKILL), the database does not outlive it.
 *
 * Run with Java's single-file source launcher, DynamoDB Local's jars on the class path; the
 * arguments are DynamoDB Local's own (-port, -dbPath, -inMemory, -sharedDb, ...).
 */
public final class LoopbackDynamoDbLocal {
  private static final String LOOPBACK = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field serverField = DynamoDBProxyServer.class.getDeclaredField("server");
    serverField.setAccessible(true);
    Server server = (Server) serverField.get(proxy);
    for (Connector connector : server.getConnectors()) {
      if (!(connector instanceof ServerConnector)) throw new IllegalStateException("Unexpected connector " + connector);
      ((ServerConnector) connector).setHost(LOOPBACK);
    }

    Thread parentWatch = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // Nothing is ever sent: only the end of the stream matters.
        }
      } catch (Exception ignored) {
        // A broken pipe means the parent is gone, as end of stream does.
      }
      Runtime.getRuntime().halt(0);
    }, "parent-watch");
    parentWatch.setDaemon(true);
    parentWatch.start();

    proxy.start();
    System.out.println("DynamoDB Local listening on " + LOOPBACK + " (loopback only)");
    proxy.join();
  }
}
